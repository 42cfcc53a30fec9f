// The OAuthProvider controller's entry: what the rest of Berth wires (README.md here tells the modules).
export { registerOAuthProviderController, type OAuthProviderControllerOptions } from './controller.ts';
