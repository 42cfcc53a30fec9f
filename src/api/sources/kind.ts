// What a source kind is: everything a Deployment's `source` decides, said once per kind (one module each,
// registered in index.ts). Plain data, so the schema, the facade and the controller all read it.

/** A spec member, as a path below `spec` (`sourceConfig.repoUrl`). */
export type SpecMemberPath = `sourceConfig.${string}` | `sourceRevisionConfig.${string}`;

/** What a new Deployment of a kind waits for before its first Revision, and how the wait is named. */
export interface AwaitedInput {
  /** The member whose arrival ends the wait. */
  member: SpecMemberPath;
  /** What it is, in a sentence: "image", "source archive". */
  what: string;
  /** The Reconciling reason while it may still come, and the Stalled reason once it is late. */
  reason: string;
  lateReason: string;
  /** What to do, for the condition's message. */
  message: string;
}

export interface SourceKind<Name extends string = string> {
  readonly name: Name;
  /** Where its applications come from, for the enum's description: "built from a repository". */
  readonly summary: string;
  /**
   * How each Revision gets its image: built by a Job from the Deployment's repository or the Revision's
   * uploaded archive, or given (`imageUri`, external or pushed to Berth's registry).
   */
  readonly image: 'built-from-repository' | 'built-from-archive' | 'given';
  /** Members only some kinds may set: those this kind may. */
  readonly members: readonly SpecMemberPath[];
  /** Members this kind requires at `kubectl apply` time. */
  readonly required: readonly SpecMemberPath[];
  /** The input a Deployment created without it waits for. */
  readonly awaits?: AwaitedInput;
  /** A CodeHostIntegration named by `sourceConfig.integrationId` reads its repository. */
  readonly usesIntegration: boolean;
  /** What the HTTP API offers a Deployment of this kind beyond the common routes. */
  readonly offers: { readonly pushToken?: boolean; readonly uploadUrl?: boolean };
  /** How a PATCH's revision_source names it, when a PATCH may ("how the new revision is made"). */
  readonly revisionSource: boolean;
  /** How its revisions are made, for "an X deployment makes its revisions ...". */
  readonly revisionsFrom: string;
}
