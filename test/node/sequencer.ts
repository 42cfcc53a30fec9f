// The node suite's files in the order ./file-needs.ts lists them: those that need least first.
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { runOrder } from './file-needs.ts';

export class NeedsSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted.toSorted((a, b) => runOrder(a.moduleId) - runOrder(b.moduleId));
  }
}
