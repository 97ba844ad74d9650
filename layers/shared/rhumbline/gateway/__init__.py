"""The MCP gateway: one Lambda that speaks MCP over Streamable HTTP and forwards each tool call.

It lists the registered tools, checks the caller against each call, dispatches the call to the
tool's own function, audits it, and translates the tool's outcome into an MCP result. It never runs
tool logic itself.
"""
