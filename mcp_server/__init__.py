"""The subtext MCP server (fastmcp)."""
