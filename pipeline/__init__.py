"""The ingestion pipeline: plain stage functions (`stages`) and the Dagster layer that wires them."""
