{{/*
Every permission Berth's service account gets: the one list the ClusterRoles and Roles are rendered
from (rbac.yaml). Each rule has a scope:
  cluster   cluster-scoped reads, always a ClusterRole: organizations are labelled namespaces.
  watched   what the controller and the facade manage in the namespaces they watch: a Role in each
            namespace of watchNamespaces (and the build namespace); one ClusterRole only with
            rbac.clusterWide and watchNamespaces empty.
  leader-election  the release namespace only: the Lease and the Events recorded about it.
  api-keys         the release namespace only: the Secrets holding API-key hashes (read only), and
                   with builder.pushRegistry the one Secret of the registry's signing key, made once.
  activator        with apps.activatorProxy, the activator's namespace only: the ReferenceGrants that
                   let an organization's HTTPRoutes lead to the activator's proxy Service.
  gateway-tls      with apps.tlsIssuer, the Gateway's namespace only: the organizations' Certificates,
                   their Secrets' removal, and the Gateway's listeners (patched under a field manager
                   per organization).
  metrics-store    with apps.concurrencyMetrics naming a cluster Service, the store's namespace only:
                   that Service read, and the NetworkPolicy berth-metrics-store that keeps
                   organizations and builds from the store's pods.
  api-server       with organizations.networkPolicy, the default namespace only: the `kubernetes`
                   Service's EndpointSlice, read once at start, so that organizations' database pods
                   reach the API server whatever blockedCidrs say (CloudNativePG's instances read it).
Nothing here deletes namespaces, touches RBAC, ConfigMaps or CRDs, writes Pods, or reads Secrets outside
the watched namespaces and the release namespace.
*/}}
{{- define "berth.permissions" -}}
- scope: cluster
  apiGroups: [""]
  resources: [namespaces]
  verbs: [get, list, watch]
{{- if include "berth.podSecurity" . }}
# organizations.podSecurity: Berth labels organization namespaces with the level (server-side apply of
# the labels alone, under a field manager of its own): with watchNamespaces, those namespaces only.
- scope: cluster
  apiGroups: [""]
  resources: [namespaces]
  verbs: [patch]
  {{- with .Values.watchNamespaces }}
  resourceNames: {{ toJson . }}
  {{- end }}
{{- end }}

- scope: watched
  apiGroups: [berth.dev]
  resources: [deployments, revisions, oauthproviders, codehostintegrations, tracingprojects, databasebackups, databaserestores]
  verbs: [get, list, watch, create, update, patch, delete]
- scope: watched
  apiGroups: [berth.dev]
  resources: [deployments/status, revisions/status, oauthproviders/status, codehostintegrations/status, tracingprojects/status, databasebackups/status, databaserestores/status]
  verbs: [get, update, patch]
- scope: watched
  apiGroups: [berth.dev]
  resources: [deployments/finalizers, revisions/finalizers, oauthproviders/finalizers, codehostintegrations/finalizers, tracingprojects/finalizers, databasebackups/finalizers, databaserestores/finalizers]
  verbs: [update]
- scope: watched
  apiGroups: [""]
  resources: [secrets, services]
  verbs: [get, list, watch, create, update, patch, delete]
# delete: a Deployment's database volume goes with it when its user chose so (the finalizer deletes the
# claim, wherever no StatefulSet controller applies the retention policy); patch: otherwise the claim is
# released from it and labelled berth.dev/retained-data, and taken back by a Deployment of the same name.
- scope: watched
  apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [get, list, watch, patch, delete]
# Read only: a revision's pods say why it cannot serve (pull errors, crashes) in seconds, and their logs
# are the deploy and build logs of the HTTP API.
- scope: watched
  apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch]
- scope: watched
  apiGroups: [""]
  resources: [pods/log]
  verbs: [get]
# Read only: what a deployment's pods use now, for its figures in the HTTP API (metrics-server's API).
- scope: watched
  apiGroups: [metrics.k8s.io]
  resources: [pods]
  verbs: [get, list]
# Read only: an agent server's pending and active runs, as KEDA reads them for its queue worker's
# ScaledObject (src/api/run-queue.ts names the two metrics).
- scope: watched
  apiGroups: [external.metrics.k8s.io]
  resources: [s0-postgresql, s1-postgresql]
  verbs: [get]
- scope: watched
  apiGroups: [apps]
  resources: [deployments, statefulsets]
  verbs: [get, list, watch, create, update, patch, delete]
- scope: watched
  apiGroups: [batch]
  resources: [jobs]
  verbs: [get, list, watch, create, update, patch, delete]
- scope: watched
  apiGroups: [autoscaling]
  resources: [horizontalpodautoscalers]
  verbs: [get, list, watch, create, update, patch, delete]
- scope: watched
  apiGroups: [networking.k8s.io]
  resources: [ingresses]
  verbs: [get, list, watch, create, update, patch, delete]
{{- if .Values.apps.gateway }}
# apps.gateway: a deployment's hosts are HTTPRoutes on that Gateway.
- scope: watched
  apiGroups: [gateway.networking.k8s.io]
  resources: [httproutes]
  verbs: [get, list, watch, create, update, patch, delete]
{{- end }}
{{- if .Values.apps.concurrencyMetrics }}
# apps.concurrencyMetrics: an app's autoscaler is a KEDA ScaledObject.
- scope: watched
  apiGroups: [keda.sh]
  resources: [scaledobjects]
  verbs: [get, list, watch, create, update, patch, delete]
{{- end }}
{{- if .Values.apps.activatorProxy }}
# apps.activatorProxy: a dev_zero app scales to zero through KEDA's HTTP add-on: its InterceptorRoute and
# its KEDA ScaledObject. The HTTPScaledObjects an earlier Berth wrote in their place are pruned.
- scope: watched
  apiGroups: [http.keda.sh]
  resources: [interceptorroutes]
  verbs: [get, list, watch, create, update, patch, delete]
- scope: watched
  apiGroups: [http.keda.sh]
  resources: [httpscaledobjects]
  verbs: [get, list, watch, delete]
{{- if not .Values.apps.concurrencyMetrics }}
- scope: watched
  apiGroups: [keda.sh]
  resources: [scaledobjects]
  verbs: [get, list, watch, create, update, patch, delete]
{{- end }}
- scope: activator
  apiGroups: [gateway.networking.k8s.io]
  resources: [referencegrants]
  verbs: [get, list, watch, create, update, patch, delete]
{{- end }}
# Deployments' databases that CloudNativePG holds (services.postgres.engine cnpg or auto, now or before): read
# wherever the cluster serves the kind, whatever the engine of new databases.
- scope: watched
  apiGroups: [postgresql.cnpg.io]
  resources: [clusters]
  verbs: [get, list, watch, create, update, patch, delete]
# Where those databases archive their WAL: the barman-cloud plugin's ObjectStore, one per deployment, in
# the organization's bucket (backups.store).
- scope: watched
  apiGroups: [barmancloud.cnpg.io]
  resources: [objectstores]
  verbs: [get, list, watch, create, update, patch, delete]
# Each DatabaseBackup is taken as one CloudNativePG Backup of its deployment's database.
- scope: watched
  apiGroups: [postgresql.cnpg.io]
  resources: [backups]
  verbs: [get, list, watch, create, update, patch, delete]
# Events: Berth's own (create, patch), and a deployment's read for the HTTP API's events route (list).
- scope: watched
  apiGroups: ["", events.k8s.io]
  resources: [events]
  verbs: [list, create, patch]
# The organization policy's objects (organizations.*): read always, so that Berth removes what it made
# once a part is unset.
- scope: watched
  apiGroups: [""]
  resources: [resourcequotas, limitranges]
  verbs: [get, list, watch, create, update, patch, delete]
- scope: watched
  apiGroups: [networking.k8s.io]
  resources: [networkpolicies]
  verbs: [get, list, watch, create, update, patch, delete]

- scope: leader-election
  apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, create, update, patch]
- scope: leader-election
  apiGroups: ["", events.k8s.io]
  resources: [events]
  verbs: [create, patch]
- scope: api-keys
  apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch]
{{- if .Values.apps.tlsIssuer }}
- scope: gateway-tls
  apiGroups: [cert-manager.io]
  resources: [certificates]
  verbs: [get, list, watch, create, update, patch, delete]
- scope: gateway-tls
  apiGroups: [gateway.networking.k8s.io]
  resources: [gateways]
  # create, delete: the Gateway's shards (listeners past apps.listenersPerGateway).
  verbs: [get, list, watch, patch, create, delete]
# delete: an organization's key goes with it (cert-manager leaves a Certificate's Secret behind).
- scope: gateway-tls
  apiGroups: [""]
  resources: [secrets]
  verbs: [delete]
{{- end }}
{{- if .Values.organizations.networkPolicy.enabled }}
- scope: api-server
  apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [get]
  resourceNames: [kubernetes]
{{- end }}
{{- with include "berth.metricsStoreService" . }}
- scope: metrics-store
  apiGroups: [""]
  resources: [services]
  verbs: [get]
  resourceNames: [{{ splitList "/" . | last }}]
- scope: metrics-store
  apiGroups: [networking.k8s.io]
  resources: [networkpolicies]
  verbs: [get, patch]
  resourceNames: [berth-metrics-store]
# create: a server-side apply that makes the policy (a create cannot be limited to a name).
- scope: metrics-store
  apiGroups: [networking.k8s.io]
  resources: [networkpolicies]
  verbs: [create]
{{- end }}
{{- if .Values.builder.pushRegistry }}
# create: Secret berth-registry-signing, the key pushed-image tokens are signed with (made by the first
# replica that finds it missing; a create cannot be limited to a name).
- scope: api-keys
  apiGroups: [""]
  resources: [secrets]
  verbs: [create]
{{- end }}
{{- end }}

{{/* The rules of one scope, without the scope key, as a YAML list. */}}
{{- define "berth.rules" -}}
{{- $scope := .scope }}
{{- $rules := list }}
{{- range fromYamlArray (include "berth.permissions" .context) }}
{{- if eq .scope $scope }}
{{- $rules = append $rules (omit . "scope") }}
{{- end }}
{{- end }}
{{- toYaml $rules }}
{{- end }}
