// Where an installation's request-driven activator is: the thing that holds a request while an app scaled
// to zero starts, which dev_zero needs. Berth speaks KEDA's HTTP add-on: its interceptor's proxy Service
// (the Gateway routes a dev_zero app's traffic there) and its external scaler's address (KEDA's operator
// dials it). Pure.

export interface ActivatorProxy {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
}

export interface Activator {
  /** The interceptor's proxy Service: `--activator-proxy <namespace>/<name>:<port>`. */
  readonly proxy: ActivatorProxy;
  /** The external scaler, host:port as KEDA's operator dials it: `--activator-scaler`. */
  readonly scalerAddress: string;
  /** The add-on still serves its HTTPScaledObject, which an earlier Berth wrote in place of today's
   * InterceptorRoute: Berth prunes those it wrote. Found on the cluster at start. */
  readonly servesHttpScaledObjects?: boolean;
  /** How long an app goes without a request before it scales to zero where its spec says nothing
   * (`idleSeconds`): `--activator-idle-seconds`, idleSecondsBeforeZero unless the installation says. */
  readonly idleSeconds?: number;
}

/** The condition of a Deployment that says whether it scales to zero here (True: through the activator). */
export const scaleToZeroCondition = 'ScaleToZero';

/** How long an app of the dev_zero tier receives no request before it goes to zero: Knative's stable
 * window. It is also the grace a new app gets before its first idle spell counts. */
export const idleSecondsBeforeZero = 60;

/** An app's idle time before zero: its own (`sourceConfig.idleSeconds`), else the installation's. */
export function idleSecondsOf(activator: Pick<Activator, 'idleSeconds'> | undefined, own: number | undefined): number {
  return own ?? activator?.idleSeconds ?? idleSecondsBeforeZero;
}

const label = '[a-z0-9](?:[-a-z0-9]*[a-z0-9])?';
const proxyPattern = new RegExp(`^(${label})/(${label}):([0-9]{1,5})$`);

/** `<namespace>/<name>:<port>`, or why it is not one. */
export function parseActivatorProxy(text: string): ActivatorProxy | { error: string } {
  const match = proxyPattern.exec(text);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65_535 || match[1]!.length > 63 || match[2]!.length > 63)
    return { error: 'expected <namespace>/<service>:<port>, e.g. keda/keda-add-ons-http-interceptor-proxy:8080' };
  return { namespace: match[1]!, name: match[2]!, port };
}
