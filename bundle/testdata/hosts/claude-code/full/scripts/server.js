// fixture MCP server placeholder
