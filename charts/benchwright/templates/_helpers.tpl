{{/* The prefix of every object's name. */}}
{{- define "benchwright.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "benchwright.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: manager
{{- end -}}

{{- define "benchwright.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The manager's ServiceAccount. The tuner's is fixed: benchwright-tuner. */}}
{{- define "benchwright.managerServiceAccount" -}}
{{ include "benchwright.fullname" . }}-manager
{{- end -}}

{{/* image: (dict "root" $ "name" "fio" "ref" .Values.images.fio). */}}
{{- define "benchwright.image" -}}
{{- $images := .root.Values.images -}}
{{- .ref | default (printf "%s/%s:%s" $images.registry .name ($images.tag | default .root.Chart.AppVersion)) -}}
{{- end -}}

{{/* The Secret of the HTTPS artifact server: tls.crt, tls.key and ca.crt. */}}
{{- define "benchwright.artifactServerTLSSecret" -}}
{{- .Values.artifactServer.tls.secretName | default (printf "%s-artifact-server-tls" (include "benchwright.fullname" .)) -}}
{{- end -}}
{{/* The artifact server's CA, in the campaigns' namespace. */}}
{{- define "benchwright.artifactServerCA" -}}
{{- printf "%s-artifact-server-ca" (include "benchwright.fullname" .) -}}
{{- end -}}
{{- define "benchwright.artifactServerTLSMount" -}}/var/run/secrets/benchwright/artifact-server-tls{{- end -}}

{{/* The ConfigMap of the GKE endpoint's CAs (empty: none), and where its key is mounted. */}}
{{- define "benchwright.gkeCAConfigMap" -}}{{ get (.Values.gke.caConfigMap | default dict) "name" }}{{- end -}}
{{- define "benchwright.gkeCAFile" -}}/etc/benchwright/gke-ca/ca.crt{{- end -}}

{{/* The mount of the artifact volume, and whether the store lives on it. */}}
{{- define "benchwright.artifactMount" -}}/var/lib/benchwright{{- end -}}
{{- define "benchwright.fileStore" -}}
{{- $url := .Values.artifactStore.url -}}
{{- if hasPrefix "file://" $url -}}
{{- $mount := include "benchwright.artifactMount" . -}}
{{- if not (or (eq $url (printf "file://%s" $mount)) (hasPrefix (printf "file://%s/" $mount) $url)) -}}
{{- fail (printf "artifactStore.url %s: a file:// store must be under %s, the artifact volume (the root filesystem is read-only)" $url $mount) -}}
{{- end -}}
true
{{- end -}}
{{- end -}}

{{/* The PVC of a file:// store: existingClaim or the one this chart creates. */}}
{{- define "benchwright.artifactClaim" -}}
{{- .Values.artifactStore.persistence.existingClaim | default (printf "%s-artifacts" (include "benchwright.fullname" .)) -}}
{{- end -}}

{{/* Combinations the schema cannot express. */}}
{{- define "benchwright.validate" -}}
{{- $gke := .Values.gke -}}
{{- if and (or $gke.project $gke.location $gke.cluster) (not (and $gke.project $gke.location $gke.cluster)) -}}
{{- fail "gke: set project, location and cluster together (or none of them)" -}}
{{- end -}}
{{- if and (or $gke.endpoint (include "benchwright.gkeCAConfigMap" .) $gke.withoutAuthentication) (not (or $gke.cluster $gke.allowedClusters)) -}}
{{- fail "gke.endpoint, gke.caConfigMap and gke.withoutAuthentication need a GKE cluster to call: set gke.project, gke.location and gke.cluster (or gke.allowedClusters)" -}}
{{- end -}}
{{- if and $gke.withoutAuthentication (not $gke.endpoint) -}}
{{- fail "gke.withoutAuthentication needs gke.endpoint: Google's own GKE API refuses calls without credentials" -}}
{{- end -}}
{{- if gt (int .Values.replicas) 1 -}}
{{- if not .Values.leaderElection.enabled -}}
{{- fail "replicas > 1 needs leaderElection.enabled, else every replica reconciles" -}}
{{- end -}}
{{- $p := .Values.artifactStore.persistence -}}
{{- if and (include "benchwright.fileStore" .) (not $p.existingClaim) (eq $p.accessMode "ReadWriteOnce") -}}
{{- fail "replicas > 1 with a file:// store needs artifactStore.persistence.accessMode ReadWriteMany (or a gs://, s3:// or azblob:// store)" -}}
{{- end -}}
{{- if and .Values.resultsDB.enabled (not .Values.resultsDB.url) -}}
{{- fail "replicas > 1 needs resultsDB.url postgres://... (SQLite is one manager's file; every replica serves histories) or resultsDB.enabled false" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
GOMEMLIMIT, the Go runtime's soft memory limit, in bytes: goMemoryLimitPercent
of resources.limits.memory, a whole number of bytes with an optional suffix
(k, M, G, T, Ki, Mi, Gi, Ti). Empty without a memory limit or with percent 0.
*/}}
{{- define "benchwright.goMemLimit" -}}
{{- $raw := dig "limits" "memory" "" (.Values.resources | default dict) -}}
{{- $pct := int .Values.goMemoryLimitPercent -}}
{{- if and $raw (gt $pct 0) -}}
{{- $limit := kindIs "string" $raw | ternary $raw (printf "%.0f" (float64 $raw)) -}}
{{- if not (regexMatch "^[0-9]+(k|M|G|T|Ki|Mi|Gi|Ti)?$" $limit) -}}
{{- fail (printf "resources.limits.memory %q: goMemoryLimitPercent needs a whole number of bytes with an optional suffix k, M, G, T, Ki, Mi, Gi or Ti (or set goMemoryLimitPercent: 0)" $limit) -}}
{{- end -}}
{{- $unit := dict "" 1 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 -}}
{{- $bytes := mul (regexFind "^[0-9]+" $limit | int64) (get $unit (regexReplaceAll "^[0-9]+" $limit "")) -}}
{{- div (mul $bytes $pct) 100 -}}
{{- end -}}
{{- end -}}

{{/* The results database's URL: resultsDB.url, else SQLite on the artifact
volume (a file:// store), else SQLite on an emptyDir that the manager's
startup backfill refills from the bucket. "" when resultsDB.enabled is false. */}}
{{- define "benchwright.resultsDBMount" -}}/var/lib/benchwright-db{{- end -}}
{{- define "benchwright.resultsDB" -}}
{{- if .Values.resultsDB.enabled -}}
{{- if .Values.resultsDB.url -}}
{{- .Values.resultsDB.url -}}
{{- else if include "benchwright.fileStore" . -}}
{{- printf "sqlite://%s/results.db" (include "benchwright.artifactMount" .) -}}
{{- else -}}
{{- printf "sqlite://%s/results.db" (include "benchwright.resultsDBMount" .) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{/* Whether the results database is SQLite on an emptyDir of its own. */}}
{{- define "benchwright.resultsDBEmptyDir" -}}
{{- if and .Values.resultsDB.enabled (not .Values.resultsDB.url) (not (include "benchwright.fileStore" .)) -}}true{{- end -}}
{{- end -}}
