{{- /*
A campaign step: `benchwright campaign ARGS...` from the manager's image, as
the campaign's ServiceAccount, given the Workflow and the matrix (its
parameters) as flags. Argv only: Argo puts each parameter into one argument.
A failure's message goes to the termination log, which Argo shows as the
step's message. Outputs are written under /tmp/campaign.
*/ -}}
{{- define "benchwright.campaignStep" -}}
{{- $root := .root -}}
container:
  image: {{ include "benchwright.image" (dict "root" $root "name" "manager" "ref" $root.Values.images.manager) | quote }}
  command: [/benchwright]
  args:
  - campaign
  - {{ first .args | quote }}
  - "--namespace={{`{{workflow.namespace}}`}}"
  - "--workflow={{`{{workflow.name}}`}}"
  - "--workflow-uid={{`{{workflow.uid}}`}}"
  - "--pools={{`{{workflow.parameters.pools}}`}}"
  - "--pool-defaults={{`{{workflow.parameters.poolDefaults}}`}}"
  - "--tunings={{`{{workflow.parameters.tunings}}`}}"
  - "--benchmarks={{`{{workflow.parameters.benchmarks}}`}}"
  - "--share-pool={{`{{workflow.parameters.sharePool}}`}}"
  - "--baselines={{`{{workflow.parameters.baselines}}`}}"
  - --termination-log=/dev/termination-log
  {{- range rest .args }}
  - {{ . | quote }}
  {{- end }}
  volumeMounts:
  - {name: campaign, mountPath: /tmp/campaign}
  securityContext:
    allowPrivilegeEscalation: false
    readOnlyRootFilesystem: true
    capabilities:
      drop: [ALL]
volumes:
- name: campaign
  emptyDir: {}
{{- end -}}
