{{/* Names and labels shared by every template. */}}

{{- define "berth.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "berth.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "berth.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "berth.selectorLabels" -}}
app.kubernetes.io/name: {{ include "berth.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "berth.labels" -}}
helm.sh/chart: {{ include "berth.chart" . }}
{{ include "berth.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: berth
{{- end }}

{{- define "berth.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "berth.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "berth.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "berth.runsFacade" -}}
{{- if has "facade" .Values.components }}true{{ end }}
{{- end }}

{{- /* Hosts no deployment's custom_url may claim: Berth's own API's (facade.ingress) and customUrls.reservedHosts. */}}
{{- define "berth.reservedHosts" -}}
{{- $hosts := list }}
{{- if .Values.facade.ingress.enabled }}
{{- range .Values.facade.ingress.hosts }}{{ $hosts = append $hosts .host }}{{ end }}
{{- end }}
{{- join "," (concat $hosts .Values.customUrls.reservedHosts | uniq) }}
{{- end }}

{{/* BERTH_PUBLIC_URL: facade.publicUrl, else the first ingress host (https when the ingress has TLS). */}}
{{- define "berth.publicUrl" -}}
{{- if .Values.facade.publicUrl }}{{ .Values.facade.publicUrl }}
{{- else if and .Values.facade.ingress.enabled .Values.facade.ingress.hosts }}
{{- printf "%s://%s" (ternary "https" "http" (not (empty .Values.facade.ingress.tls))) (first .Values.facade.ingress.hosts).host }}
{{- end }}
{{- end }}

{{/* BERTH_ORGANIZATION_POLICY: the parts of .Values.organizations that are set, as JSON; empty when none is. */}}
{{- define "berth.organizationPolicy" -}}
{{- $organizations := .Values.organizations }}
{{- $policy := dict }}
{{- with $organizations.maxReplicas }}{{ $_ := set $policy "maxReplicas" (int .) }}{{ end }}
{{- if not (kindIs "invalid" $organizations.maxCustomHosts) }}{{ $_ := set $policy "maxCustomHosts" (int $organizations.maxCustomHosts) }}{{ end }}
{{- with $organizations.customHostProof }}{{ $_ := set $policy "customHostProof" . }}{{ end }}
{{- with $organizations.previewDatabaseClone }}{{ $_ := set $policy "previewDatabaseClone" . }}{{ end }}
{{- if $organizations.resourceQuota.enabled }}{{ $_ := set $policy "resourceQuota" $organizations.resourceQuota.hard }}{{ end }}
{{- if $organizations.limitRange.enabled }}
{{- $limits := dict }}
{{- range $part := list "default" "defaultRequest" "max" "min" }}
{{- with index $organizations.limitRange $part }}{{ $_ := set $limits $part . }}{{ end }}
{{- end }}
{{- if $limits }}{{ $_ := set $policy "limitRange" $limits }}{{ end }}
{{- end }}
{{- if include "berth.podSecurity" . }}{{ $_ := set $policy "podSecurity" $organizations.podSecurity }}{{ end }}
{{- if $organizations.networkPolicy.enabled }}
{{- $_ := set $policy "networkPolicy" (dict "blockedCidrs" $organizations.networkPolicy.blockedCidrs "ingressFromNamespaces" $organizations.networkPolicy.ingressFromNamespaces) }}
{{- end }}
{{- if $organizations.nodeVolumes.enabled }}
{{- $_ := set $policy "nodeVolumes" (dict "nfsServers" $organizations.nodeVolumes.nfsServers "csiDrivers" $organizations.nodeVolumes.csiDrivers) }}
{{- end }}
{{- if $policy }}{{ toJson $policy }}{{ end }}
{{- end }}

{{/* The Pod Security level Berth enforces in organization namespaces, empty for "none". */}}
{{- define "berth.podSecurity" -}}
{{- if ne .Values.organizations.podSecurity "none" }}{{ .Values.organizations.podSecurity }}{{ end }}
{{- end }}

{{/* The cluster Service apps.concurrencyMetrics names, as namespace/name, or nothing: a host
<service>.<namespace>, optionally with .svc and the cluster's domain (metricsStoreService in
src/api/metrics-store-policy.ts reads it the same way). Berth keeps a NetworkPolicy beside its pods. */}}
{{- define "berth.metricsStoreService" -}}
{{- with .Values.apps.concurrencyMetrics }}
{{- $hostLabels := splitList "." ((urlParse .).host | splitList ":" | first) }}
{{- if and (ge (len $hostLabels) 2) (or (eq (len $hostLabels) 2) (eq (index $hostLabels 2) "svc")) }}
{{- if and (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" (index $hostLabels 0)) (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" (index $hostLabels 1)) }}
{{- index $hostLabels 1 }}/{{ index $hostLabels 0 }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The controllers that may update (and, for NetworkPolicies, delete) what Berth made in organization
namespaces, as a CEL list: named identities, never a prefix (src/api/admission-policy.ts).
*/}}
{{- define "berth.clusterControllers" -}}
{{- $quoted := list }}
{{- range .Values.organizations.clusterControllers }}
{{- $quoted = append $quoted (printf "'%s'" .) }}
{{- end }}
{{- printf "[%s]" (join ", " $quoted) }}
{{- end }}
