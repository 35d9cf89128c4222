"""Drive trove web's /mcp with the official MCP Python SDK's Streamable HTTP client, and print what it answered.

usage: PYTHON_OF_THE_SDK_VENV mcp_http_session.py URL TOKEN [TOOL JSON_ARGS]...

Initializes a ClientSession over the SDK's `streamable_http_client` (the bearer token in every request's
Authorization header), lists the tools, then calls each TOOL with its JSON arguments in order. Prints one JSON object:
{"protocol_version", "server", "tools", "calls": [{"tool", "is_error", "content", "structured"}]}. Exit 0 when every
step got an answer (a tool result with isError true is still an answer), 1 on a protocol error or a timeout, with the
reason on stderr.
"""
import asyncio, json, sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(model, "model_dump") else model


async def run(url, token, calls):
    out = {"calls": []}
    async with httpx2.AsyncClient(headers={"Authorization": "Bearer " + token}, timeout=30) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                out["protocol_version"] = init.protocol_version
                out["server"] = dump(init.server_info)
                out["tools"] = [dump(t) for t in (await session.list_tools()).tools]
                for name, arguments in calls:
                    result = await session.call_tool(name, json.loads(arguments))
                    out["calls"].append({"tool": name, "is_error": bool(result.is_error),
                                         "content": [dump(c) for c in result.content],
                                         "structured": result.structured_content})
    return out


def main():
    if len(sys.argv) < 3 or len(sys.argv) % 2 == 0:
        sys.exit(__doc__)
    url, token, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    calls = list(zip(rest[0::2], rest[1::2]))
    try:
        out = asyncio.run(asyncio.wait_for(run(url, token, calls), 60))
    except BaseException as e:  # the SDK raises McpError, TimeoutError, ExceptionGroup ...
        print(f"mcp_http_session.py: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
