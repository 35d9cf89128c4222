"""Checks of `trove mcp` that ../shared/tools/mcp-client/session.py cannot make, driven by the official MCP Python SDK
(PyPI mcp==2.3.0) in its venv: run with that venv's python.

usage: sdk_checks.py concurrency QUESTION QUERY -- SERVER_COMMAND...
         starts a (slow) ask, then a search while it runs, then an ask abandoned after 0.5 s (the SDK sends
         notifications/cancelled), then status; prints {"search_done", "ask_done", "ask_mode", "cancelled",
         "status_after"} (seconds since the first call; "cancelled" is the exception the abandoned call raised)
       sdk_checks.py auto -- SERVER_COMMAND...
         the SDK's high-level Client (server/discover first, -32601 then initialize), lists the tools, prints
         {"seconds", "tools"} measured after the SDK is imported
       sdk_checks.py bench N QUERIES -- SERVER_COMMAND...   (QUERIES: a file of queries, or one query)
         after a first search, N rounds of ping, keyword search and hybrid search (interleaved); prints p50, p90
         and min per kind in ms
"""
import json, sys, time

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


def params(command):
    return StdioServerParameters(command=command[0], args=command[1:])


async def concurrency(question, query, command):
    out = {}
    async with stdio_client(params(command)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            start = time.monotonic()

            async def ask():
                result = await session.call_tool("ask", {"question": question})
                out["ask_done"] = time.monotonic() - start
                out["ask_mode"] = (result.structured_content or {}).get("mode")

            async def search():
                await anyio.sleep(0.3)
                result = await session.call_tool("search", {"query": query, "limit": 1})
                out["search_done"] = time.monotonic() - start
                out["search_error"] = bool(result.is_error)

            async with anyio.create_task_group() as group:
                group.start_soon(ask)
                group.start_soon(search)
            try:
                await session.call_tool("ask", {"question": question}, read_timeout_seconds=0.5)
                out["cancelled"] = None
            except Exception as error:  # the SDK raises on the timeout after sending notifications/cancelled
                out["cancelled"] = type(error).__name__
            result = await session.call_tool("status", {})
            out["status_after"] = not result.is_error
    return out


async def auto(command):
    from mcp import Client
    start = time.monotonic()
    async with Client(params(command)) as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
    return {"seconds": time.monotonic() - start, "tools": tools}


async def bench(count, queries, command):
    """Calls interleaved, so load on a shared machine hits all kinds alike: ping (the SDK's own round trip),
    keyword search (no embedding), and the default hybrid search; queries taken in turn from `queries` (one per
    line, or a TSV whose second column is the query), so no answer can be a repeat of the one before."""
    try:
        with open(queries, encoding="utf-8") as file:
            texts = [line.rstrip("\n").split("\t")[1 if "\t" in line else 0] for line in file if line.strip()]
    except OSError:
        texts = [queries]
    query = texts[0]
    kinds = ["ping", "search keyword", "search"]
    times = {kind: [] for kind in kinds}
    async with stdio_client(params(command)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            start = time.perf_counter()
            await session.call_tool("search", {"query": query})
            first = time.perf_counter() - start
            for round in range(count):
                text = texts[(round + 1) % len(texts)]
                for kind in kinds:
                    start = time.perf_counter()
                    if kind == "ping":
                        await session.send_ping()
                    else:
                        arguments = {"query": text, "mode": "keyword"} if kind == "search keyword" else {"query": text}
                        result = await session.call_tool("search", arguments)
                        assert not result.is_error, result.content
                    times[kind].append(time.perf_counter() - start)
    out = {"first_search_ms": 1000 * first, "calls": count}
    for kind, values in times.items():
        values.sort()
        out[kind] = {"p50_ms": 1000 * values[len(values) // 2], "p90_ms": 1000 * values[int(len(values) * 0.9)],
                     "min_ms": 1000 * values[0]}
    return out


def main():
    argv = sys.argv[1:]
    if "--" not in argv or not argv:
        sys.exit(__doc__)
    split = argv.index("--")
    head, command = argv[:split], argv[split + 1:]
    if head[0] == "concurrency":
        coroutine = concurrency(head[1], head[2], command)
    elif head[0] == "auto":
        coroutine = auto(command)
    elif head[0] == "bench":
        coroutine = bench(int(head[1]), head[2], command)
    else:
        sys.exit(__doc__)
    try:
        out = anyio.run(lambda: coroutine)
    except Exception as error:
        print(f"sdk_checks.py: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
