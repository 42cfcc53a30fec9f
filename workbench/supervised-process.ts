// Starts a binary that dies with us. The binary runs under a tiny shell that holds a pipe from this
// process on stdin: when the pipe closes (we stopped it, exited, or were SIGKILLed) the shell sends
// SIGTERM to the binary. That is the one way to stop it, so an interrupted test run or a killed
// `berth dev` leaves no etcd or kube-apiserver behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { Socket } from 'node:net';

const watchdog = `
"$0" "$@" & child=$!
exec 3<&0
( read -r _ <&3; kill -TERM "$child" 2>/dev/null; sleep 5; kill -KILL "$child" 2>/dev/null ) &
watcher=$!
wait "$child"; status=$?
kill "$watcher" 2>/dev/null
exit "$status"
`;

export interface SupervisedProcess {
  readonly name: string;
  readonly pid: number | undefined;
  /** Resolves with the exit code once the process has exited, whoever stopped it. */
  readonly exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

export function startSupervised(
  name: string,
  binary: string,
  args: string[],
  logFile: string,
  env: NodeJS.ProcessEnv = process.env,
): SupervisedProcess {
  const log = openSync(logFile, 'a');
  const child: ChildProcess = spawn('/bin/sh', ['-c', watchdog, binary, ...args], {
    stdio: ['pipe', log, log],
    env,
  });
  closeSync(log);
  // The pipe must not keep our event loop alive, nor crash us when the shell is gone.
  child.stdin?.on('error', () => {});
  child.unref();
  // A pipe to a child is a net.Socket, which can be unref'd.
  if (child.stdin instanceof Socket) child.stdin.unref();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    name,
    pid: child.pid,
    exited,
    async stop() {
      child.ref();
      child.stdin?.end();
      return exited;
    },
  };
}
