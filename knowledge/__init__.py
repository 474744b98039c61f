"""What the product does with the graph: the brief, compile, access keys, export and import, status,
page corrections and where each person's documents live.

It reads and writes through `graph_schema` (the data model and the store, every Cypher statement
in `graph_schema.queries`); the pipeline, the MCP server and the CLI use it. See README, Layout.
"""
