// POST /v1/integrations/codehost/{integration_id}/webhook: a code host's delivery about a repository,
// verified by the integration's webhook secret (its credentials Secret's `webhookSecret`) over the exact
// bytes received. No API key: the signature is the credential. A verified delivery marks each deployment
// of that repository (previews included) so that its next pass reads branches and pull requests anew;
// nothing in the delivery is taken as state.
import type { FastifyInstance } from 'fastify';
import { codeHostProvider } from '../../api/codehost-providers.ts';
import { codeHostEventAnnotation, deploymentKind } from '../../api/index.ts';
import { deliveryHint, deliveryVerified, sameRepository } from '../../codehost/webhook.ts';
import { HttpError } from '../errors.ts';
import { byUid, type FacadeDependencies } from '../ports.ts';
import { uuidPathParam } from '../request.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { parseStrictJson } from '../server.ts';

/** The largest delivery taken: GitHub caps its payloads at 25 MB, but what Berth reads is near the top. */
const maxDeliveryBytes = 1024 * 1024;

const webhookRoutes = {
  deliver: {
    method: 'POST',
    url: '/v1/integrations/codehost/:integration_id/webhook',
    summary: "Receive a code host's webhook delivery",
    description:
      "Point the repository's (or GitHub App's) webhook here, with the secret stored under key webhookSecret of the integration's credentials Secret: " +
      'GitHub signs with it (X-Hub-Signature-256), GitLab sends it (X-Gitlab-Token). A verified delivery (push, pull_request, Merge Request Hook, ...) makes the ' +
      "repository's deployments and previews read it again at once instead of at their next poll. No API key.",
    body: { schema: { jsonSchema: { type: 'object', description: "The code host's event payload, as it sends it." } }, required: true },
    success: {
      status: 202,
      description: 'Verified: the deployments of the repository read it again.',
      schema: { jsonSchema: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] } },
    },
    public: true,
  },
} satisfies Record<string, RouteSpec>;

export function registerWebhookRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  void app.register(async (scope) => {
    // The signature is over the bytes as sent: they are kept, and parsed only once verified.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: maxDeliveryBytes }, (_request, body, done) =>
      done(null, body),
    );
    serve<{ Params: { integration_id: string } }>(scope, webhookRoutes.deliver, async (request, reply) => {
      const id = uuidPathParam(request, 'integration_id');
      const integration = deps.cache.codeHostIntegrations.byIndex(byUid, id)[0];
      // One answer whether the integration is missing, takes no webhooks or the signature is wrong: a
      // caller without the secret cannot tell which integrations exist or take webhooks.
      const unverified = new HttpError(401, `The delivery is not verified: integration ID ${id} takes no webhook signed so.`);
      if (!integration) throw unverified;
      const secret = await deps.repositories.webhookSecret(integration).catch((error: unknown) => {
        // A missing Secret reads as undefined, so this is the API server failing: logged, and answered like the rest.
        request.log.warn({ err: (error as Error).message, integration: id }, 'could not read the webhook secret');
        return undefined;
      });
      if (!secret) throw unverified;
      const provider = codeHostProvider(integration.spec.provider);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (!deliveryVerified(provider, request.headers, body, secret)) throw unverified;
      const hint = deliveryHint(provider, request.headers, parseStrictJson(body.toString('utf8')));
      const namespace = integration.metadata.namespace ?? '';
      const deployments = deps.cache.deployments
        .list(namespace)
        .filter(
          (deployment) =>
            deployment.metadata.namespace === namespace &&
            deployment.spec.sourceConfig?.integrationId === id &&
            (!hint.repositoryUrl || sameRepository(deployment.spec.sourceConfig.repoUrl ?? '', hint.repositoryUrl)),
        );
      const stamp = hint.delivery ?? new Date().toISOString();
      for (const deployment of deployments)
        await deps.writer.patch(deploymentKind, namespace, deployment.metadata.name ?? '', {
          metadata: { annotations: { [codeHostEventAnnotation]: stamp } },
        });
      reply.code(202);
      return { detail: `${hint.event || 'The delivery'}: ${deployments.length} deployment(s) read the repository again.` };
    });
  });
}
