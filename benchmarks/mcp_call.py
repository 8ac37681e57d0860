"""What a tool call costs over MCP: a small Read through the SDK's stdio client against the same Read in process.

    python -m benchmarks.mcp_call [CHECKOUT ...] [--calls N]

Each checkout (default: this one) serves `fstools mcp` over stdio to the MCP SDK's own
client; the calls go to the servers in turn, then in process, N times, so every figure
saw the same load. Printed per checkout: the median round trip, the median in-process
call, the overhead (their difference) and the server's CPU time per call (from
/proc, which load does not inflate as it does wall time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children() -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        with open(f"/proc/{os.getpid()}/task/{task}/children") as f:
            found += [int(pid) for pid in f.read().split()]
    return found


async def _measure(checkouts: list[str], calls: int, root: str) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    import fstools

    path = os.path.join(root, "small.txt")
    with open(path, "w") as f:
        f.write("".join(f"line {i}\n" for i in range(20)))
    async with AsyncExitStack() as stack:
        sessions = []
        for checkout in checkouts:
            before = set(_children())
            argv = ["-m", "fstools", "mcp", "--root", root, "--index", "off"]
            env = dict(os.environ, PYTHONPATH=checkout)
            params = StdioServerParameters(command=sys.executable, args=argv, env=env, cwd=root)
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            for _ in range(20):  # warm: modules loaded, context built
                await session.call_tool("Read", {"file_path": path})
            (pid,) = set(_children()) - before
            sessions.append((checkout, session, pid))
        ctx = fstools.ExecutionContext(working_dir=root, allowed_dirs=[root])
        registry = fstools.create_registry()
        times: dict[str, list[float]] = {checkout: [] for checkout in checkouts}
        local: list[float] = []
        cpu = {pid: _cpu_seconds(pid) for _, _, pid in sessions}
        for _ in range(calls):
            for checkout, session, _ in sessions:
                start = time.perf_counter()
                result = await session.call_tool("Read", {"file_path": path})
                times[checkout].append(time.perf_counter() - start)
                assert not result.is_error, result
            start = time.perf_counter()
            assert registry.run("Read", ctx, file_path=path).success
            local.append(time.perf_counter() - start)
        in_process = statistics.median(local) * 1000
        print(f"load average {os.getloadavg()[0]:.1f}; {calls} calls each; in process {in_process:.3f} ms")
        for checkout, _, pid in sessions:
            median = statistics.median(times[checkout]) * 1000
            server = (_cpu_seconds(pid) - cpu[pid]) * 1000 / calls
            print(
                f"{checkout}: round trip {median:.3f} ms, overhead {median - in_process:.3f} ms, "
                f"server CPU {server:.3f} ms a call"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", nargs="*", default=[REPO], help="fstools checkouts to serve (default: this one)")
    parser.add_argument("--calls", type=int, default=400)
    args = parser.parse_args()
    import anyio

    with tempfile.TemporaryDirectory() as root:
        anyio.run(_measure, [os.path.abspath(c) for c in args.checkouts], args.calls, os.path.realpath(root))


if __name__ == "__main__":
    main()
