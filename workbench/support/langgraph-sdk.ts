// The reference's SDK (langgraph-sdk, installed with its client: langgraph-cli.ts), as an app calls an
// agent server: threads made, runs waited for and read back through the server's URL.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { langgraphCli } from './langgraph-cli.ts';
import { startLoopbackProxy } from './loopback-proxy.ts';

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

/** An agent server as the SDK reaches it: its URL, and for an https URL under `localhost` (the node's
 * Gateway) the CA its certificate is trusted by. Names under `localhost` are reached through the
 * loopback proxy (loopback-proxy.ts). */
export interface AgentServer {
  url: string;
  /** A PEM file of the CA (httpx reads SSL_CERT_FILE). */
  caFile?: string;
}

const program = `
import asyncio, json, os, sys, warnings
import httpx
from langgraph_sdk.client import LangGraphClient

def connect(url):
    # The SDK's client on an httpx client of its own, which takes the environment's proxy and CA
    # (HTTPS_PROXY, SSL_CERT_FILE), as an app behind a proxy does: get_client's transport takes no proxy.
    return LangGraphClient(httpx.AsyncClient(base_url=url, timeout=httpx.Timeout(connect=5, read=300, write=300, pool=5)))

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
    client = connect(url)
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
    if step == "backlog":
        # Runs started in the background, each on a thread of its own, none waited for.
        runs = []
        for _ in range(inputs[0]["count"]):
            thread = (await client.threads.create())["thread_id"]
            run = await client.runs.create(thread, graph, input=inputs[0]["input"])
            runs.append([thread, run["run_id"]])
        print(json.dumps(runs))
        return
    if step == "steady":
        # Runs started one at a time at an interval, each on a thread of its own, at least count of them
        # and on until the marker file exists (or 4 x count): a create that fails is kept, not raised.
        ask = inputs[0]
        runs, refused = [], []
        while len(runs) + len(refused) < 4 * ask["count"] and (len(runs) + len(refused) < ask["count"] or not os.path.exists(ask["until"])):
            try:
                thread = (await client.threads.create())["thread_id"]
                run = await client.runs.create(thread, graph, input=ask["input"])
                runs.append([thread, run["run_id"]])
            except Exception as error:
                refused.append(getattr(getattr(error, "response", None), "status_code", None) or type(error).__name__)
            await asyncio.sleep(ask["interval"])
        print(json.dumps({"runs": runs, "refused": refused}))
        return
    if step == "cron":
        # A cron bound to a new thread (its first run starts at once), and its id.
        thread_id = (await client.threads.create())["thread_id"]
        await client.crons.create_for_thread(thread_id, graph, schedule=inputs[0]["schedule"], input=inputs[0]["input"])
        crons = await client.crons.search(thread_id=thread_id)
        print(json.dumps({"thread_id": thread_id, "cron_id": crons[0]["cron_id"]}))
        return
    if step == "cron_delete":
        await client.crons.delete(inputs[0])
        print(json.dumps("deleted"))
        return
    if step == "runs_made":
        # When each run of the thread was made, oldest first.
        runs = await client.runs.list(thread_id, limit=500)
        print(json.dumps(sorted(run["created_at"] for run in runs)))
        return
    if step == "stream":
        # A run streamed through the URL: what the run's status was when the first event came, and the
        # events. A dropped connection leaves the run going (on_disconnect "continue": the server's default
        # cancels it) and the SDK reconnects, saying so in a warning: kept as "reconnected".
        thread_id = (await client.threads.create())["thread_id"]
        events, first_seen_while = [], None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            stream = client.runs.stream(thread_id, graph, input=inputs[0], stream_mode="values", on_disconnect="continue")
            async for part in stream:
                if first_seen_while is None:
                    first_seen_while = (await client.runs.list(thread_id))[0]["status"]
                events.append(part.event)
        state = await client.threads.get_state(thread_id)
        reconnected = [str(warning.message) for warning in caught if "econnect" in str(warning.message)]
        print(json.dumps({"first_seen_while": first_seen_while, "events": events, "values": state["values"], "reconnected": reconnected}))
        return
    if step == "join":
        for thread, run in inputs:
            await client.runs.join(thread, run)
        print(json.dumps([(await client.runs.get(thread, run))["status"] for thread, run in inputs]))
        return
    print(json.dumps(await reading(client, thread_id)))

asyncio.run(main(*sys.argv[1:]))
`;

let loopbackProxy: Promise<string> | undefined;

/** A URL under `localhost` is reached through the loopback proxy (loopback-proxy.ts), by the client's
 * own proxy setting; any other directly. */
async function proxyFor(url: string): Promise<Record<string, string>> {
  if (!new URL(url).hostname.endsWith('.localhost')) return {};
  loopbackProxy ??= startLoopbackProxy();
  return { HTTPS_PROXY: await loopbackProxy, NO_PROXY: '' };
}

async function sdk(server: string | AgentServer, step: string, threadId: string, graph: string, inputs: unknown[]): Promise<unknown> {
  const { url, caFile } = typeof server === 'string' ? { url: server, caFile: undefined } : server;
  const python = join(dirname(await langgraphCli()), 'python');
  const args = ['-c', program, url, step, threadId, graph, JSON.stringify(inputs)];
  const env = { ...process.env, ...(caFile ? { SSL_CERT_FILE: caFile } : {}), ...(await proxyFor(url)) };
  const { stdout } = await run(python, args, { timeout: 300_000, encoding: 'utf8', env });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** A new thread with one run of `graph` on `input`, read back. */
export function createThread(server: string | AgentServer, input: object, graph = 'agent'): Promise<ThreadReading> {
  return sdk(server, 'create', '', graph, [input]) as Promise<ThreadReading>;
}

/** One more run on the thread, read back. */
export function runOnThread(server: string | AgentServer, threadId: string, input: object, graph = 'agent'): Promise<ThreadReading> {
  return sdk(server, 'run', threadId, graph, [input]) as Promise<ThreadReading>;
}

/** The thread as it is. */
export function readThread(server: string | AgentServer, threadId: string): Promise<ThreadReading> {
  return sdk(server, 'read', threadId, 'agent', []) as Promise<ThreadReading>;
}

/** Two runs sent at once to one thread, each with its multitask strategy. */
export function concurrentRuns(
  server: string | AgentServer,
  threadId: string,
  graph: string,
  runs: [{ input: object; strategy: string }, { input: object; strategy: string }],
): Promise<ConcurrentRuns> {
  return sdk(server, 'concurrent', threadId, graph, runs) as Promise<ConcurrentRuns>;
}

/** A run streamed (`runs.stream`, values): the run's status when its first event came, and the events. */
export interface StreamedRun {
  first_seen_while: string;
  events: string[];
  values: Record<string, unknown>;
  /** The SDK's warnings of a stream it took up again after its connection dropped. */
  reconnected: string[];
}

/** One run of `graph` on `input`, on a new thread, streamed as it goes. */
export function streamRun(server: string | AgentServer, graph: string, input: object): Promise<StreamedRun> {
  return sdk(server, 'stream', '', graph, [input]) as Promise<StreamedRun>;
}

/** A thread and one of its runs. */
export type StartedRun = [threadId: string, runId: string];

/** `count` runs of `graph` on `input` started in the background, each on a new thread. */
export function startRuns(server: string | AgentServer, graph: string, count: number, input: object): Promise<StartedRun[]> {
  return sdk(server, 'backlog', '', graph, [{ count, input }]) as Promise<StartedRun[]>;
}

/** Runs started one at a time, `intervalSeconds` apart, on threads of their own: at least `count`, and on
 * until the file `until` exists. Creates the server refused (status code or error name) are in `refused`. */
export function steadyRuns(
  server: string | AgentServer,
  graph: string,
  ask: { count: number; intervalSeconds: number; until: string; input: object },
): Promise<{ runs: StartedRun[]; refused: (number | string)[] }> {
  const inputs = [{ count: ask.count, interval: ask.intervalSeconds, until: ask.until, input: ask.input }];
  return sdk(server, 'steady', '', graph, inputs) as Promise<{ runs: StartedRun[]; refused: (number | string)[] }>;
}

/** A cron of `graph` on a new thread of its own (its first run starts at once): the thread and the cron. */
export function createCron(
  server: string | AgentServer,
  graph: string,
  cron: { schedule: string; input: object },
): Promise<{ thread_id: string; cron_id: string }> {
  return sdk(server, 'cron', '', graph, [cron]) as Promise<{ thread_id: string; cron_id: string }>;
}

export function deleteCron(server: string | AgentServer, cronId: string): Promise<unknown> {
  return sdk(server, 'cron_delete', '', 'agent', [cronId]);
}

/** When each run of the thread was made (RFC 3339), oldest first. */
export function runsMade(server: string | AgentServer, threadId: string): Promise<string[]> {
  return sdk(server, 'runs_made', threadId, 'agent', []) as Promise<string[]>;
}

/** Waits for each run to end; answers their statuses. */
export function joinRuns(server: string | AgentServer, runs: StartedRun[]): Promise<string[]> {
  return sdk(server, 'join', '', 'agent', runs) as Promise<string[]>;
}
