export {
  registerCodeHostIntegrationController,
  integrationsByCredentialsSecret,
  type CodeHostIntegrationController,
  type CodeHostIntegrationControllerOptions,
} from './controller.ts';
export { createCodeHostIntegrationReconciler, type CodeHostIntegrationDependencies } from './reconcile.ts';
export { decide, reasons, type Decision, type Timing, type Verification } from './status.ts';
