"""Run under a separate virtualenv with the mcp 1.x SDK (see scripts/test): a real 1.x client.

Prints one JSON object: the negotiated protocol version, the tool names, and one call's result.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def main(url: str, token: str, project: str) -> None:
    async with streamablehttp_client(url, headers={"Authorization": f"Bearer {token}"}) as (read, write, _):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            tools = await session.list_tools()
            found = await session.call_tool("search", {"query": "Cart", "project": project})
            denied = await session.call_tool("get_node", {"project": "other/team", "node_id": "repository:"})
    print(
        json.dumps(
            {
                "protocol_version": initialized.protocolVersion,
                "server": initialized.serverInfo.name,
                "tools": sorted(tool.name for tool in tools.tools),
                "output_schemas": sorted(tool.name for tool in tools.tools if tool.outputSchema),
                "search": found.structuredContent,
                "search_is_error": found.isError,
                "denied_is_error": denied.isError,
                "denied_text": denied.content[0].text,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
