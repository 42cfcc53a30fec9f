// The TracingProject controller: a project exists as soon as its object does, so reconciling it means
// recording that (Ready=True for the generation seen), written only when it changes.
import { fieldManager, tracingProjectKind, type TracingProject } from '../../api/index.ts';
import { unlessStatusOnly, writeStatus, type Controller, type Manager } from '../../runtime/index.ts';
import { nextTracingProjectStatus } from './status.ts';

/** `namespaces` as the Deployment controller's: the cache of TracingProjects is the one it shares. */
export function registerTracingProjectController(manager: Manager, options: { namespaces?: string[]; now?: () => Date } = {}): Controller {
  const projects = manager.informer<TracingProject>(tracingProjectKind, options.namespaces ? { namespaces: options.namespaces } : {});
  const now = options.now ?? (() => new Date());
  const controller = manager.addController({
    name: 'tracing-project',
    informer: projects,
    // Its own status write comes back as an update that needs no pass.
    changed: unlessStatusOnly,
    reconcile: async ({ namespace, name }) => {
      const project = projects.get(namespace, name);
      if (!project || project.metadata.deletionTimestamp) return;
      const next = nextTracingProjectStatus(project.status as TracingProject['status'], project.metadata.generation ?? 0, now());
      await writeStatus<TracingProject>(manager.kubeConfig, project, next, fieldManager);
    },
  });
  return controller;
}
