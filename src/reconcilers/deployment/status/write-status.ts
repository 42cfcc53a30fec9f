// The one place the Deployment controller writes status: a pass's decision (status-decision.ts), once,
// at the pass's end, in the decision's order; the Events a Deployment's status brings go out once it is
// stored. A write refused because the object changed since the pass read it (StaleObjectError) ends the
// pass there: the runtime runs it again from a fresher cache, and that pass decides everything again.
import type { Deployment, Revision } from '../../../api/index.ts';
import type { Pass } from '../pass.ts';
import type { StatusDecision } from './status-decision.ts';

export async function writeStatus(pass: Pass, decision: StatusDecision): Promise<void> {
  for (const write of decision.writes) {
    if (write.kind === 'Revision') {
      await pass.writer.status<Revision>(write.object, write.status);
      continue;
    }
    await pass.writer.status<Deployment>(write.object, write.status);
    for (const event of write.events) pass.context.recorder.event(write.object, event.type, event.reason, event.message);
  }
}
