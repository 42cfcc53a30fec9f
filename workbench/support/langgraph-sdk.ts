// The reference's SDK (langgraph-sdk, installed with its client: langgraph-cli.ts), as an app calls an
// agent server: threads made, runs waited for and read back through the server's URL.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { langgraphCli } from './langgraph-cli.ts';

const run = promisify(execFile);

/** A thread as the SDK reads it: its status, its state's values and how many checkpoints its history has. */
export interface ThreadReading {
  thread_id: string;
  status: string;
  values: Record<string, unknown>;
  checkpoints: number;
}

/** What two runs sent at once to one thread came to, and the thread after both. */
export interface ConcurrentRuns {
  thread: ThreadReading;
  /** Per run: "ok", or the HTTP status code it was refused with. */
  outcomes: (string | number)[];
}

const program = `
import asyncio, json, sys
import httpx
from langgraph_sdk import get_client

async def reading(client, thread_id):
    thread = await client.threads.get(thread_id)
    state = await client.threads.get_state(thread_id)
    history = await client.threads.get_history(thread_id, limit=100)
    return {"thread_id": thread_id, "status": thread["status"], "values": state["values"], "checkpoints": len(history)}

async def outcome(coroutine):
    try:
        await coroutine
        return "ok"
    except httpx.HTTPStatusError as error:
        return error.response.status_code

async def main(url, step, thread_id, graph, inputs):
    client = get_client(url=url)
    inputs = json.loads(inputs)
    if step == "create":
        thread_id = (await client.threads.create())["thread_id"]
    if step in ("create", "run"):
        await client.runs.wait(thread_id, graph, input=inputs[0])
    if step == "concurrent":
        # Both sent before either ends; the second with the strategy asked for.
        first = await client.runs.create(thread_id, graph, input=inputs[0]["input"], multitask_strategy=inputs[0]["strategy"])
        outcomes = await asyncio.gather(
            outcome(client.runs.join(thread_id, first["run_id"])),
            outcome(client.runs.wait(thread_id, graph, input=inputs[1]["input"], multitask_strategy=inputs[1]["strategy"])),
        )
        print(json.dumps({"thread": await reading(client, thread_id), "outcomes": list(outcomes)}))
        return
    print(json.dumps(await reading(client, thread_id)))

asyncio.run(main(*sys.argv[1:]))
`;

async function sdk(url: string, step: string, threadId: string, graph: string, inputs: unknown[]): Promise<unknown> {
  const python = join(dirname(await langgraphCli()), 'python');
  const args = ['-c', program, url, step, threadId, graph, JSON.stringify(inputs)];
  const { stdout } = await run(python, args, { timeout: 180_000, encoding: 'utf8' });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** A new thread with one run of `graph` on `input`, read back. */
export function createThread(url: string, input: object, graph = 'agent'): Promise<ThreadReading> {
  return sdk(url, 'create', '', graph, [input]) as Promise<ThreadReading>;
}

/** One more run on the thread, read back. */
export function runOnThread(url: string, threadId: string, input: object, graph = 'agent'): Promise<ThreadReading> {
  return sdk(url, 'run', threadId, graph, [input]) as Promise<ThreadReading>;
}

/** The thread as it is. */
export function readThread(url: string, threadId: string): Promise<ThreadReading> {
  return sdk(url, 'read', threadId, 'agent', []) as Promise<ThreadReading>;
}

/** Two runs sent at once to one thread, each with its multitask strategy. */
export function concurrentRuns(
  url: string,
  threadId: string,
  graph: string,
  runs: [{ input: object; strategy: string }, { input: object; strategy: string }],
): Promise<ConcurrentRuns> {
  return sdk(url, 'concurrent', threadId, graph, runs) as Promise<ConcurrentRuns>;
}
