// SPDX-License-Identifier: Apache-2.0
//
// Validates Kubernetes objects against the Kubernetes and prometheus-operator
// OpenAPI schemas of the npm packages kubernetes-models and
// @kubernetes-models/prometheus-operator (package.json; `npm ci` in this
// directory, which scripts/install-deps.sh --test runs).
//   node validate.mjs < objects.json
// objects.json: a JSON array of objects (k8s-manifests.sh converts the YAML
// that `kubectl kustomize` renders). Prints one line per object; exit 1 if an
// object fails its schema or has a kind no schema knows.

const groups = {
  'v1': 'kubernetes-models/v1',
  'apps/v1': 'kubernetes-models/apps/v1',
  'monitoring.coreos.com/v1': '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
};

let input = '';
for await (const chunk of process.stdin) input += chunk;
const objects = JSON.parse(input);
let failed = 0;
for (const obj of objects) {
  const what = `${obj.apiVersion} ${obj.kind} ${obj.metadata?.name}`;
  const module = groups[obj.apiVersion];
  const Model = module ? (await import(module))[obj.kind] : undefined;
  if (!Model) {
    console.log(`not ok - ${what}: no schema for this apiVersion and kind`);
    failed++;
    continue;
  }
  try {
    new Model(obj).validate();
    console.log(`ok - ${what} is valid`);
  } catch (e) {
    console.log(`not ok - ${what}: ${e.message}`);
    failed++;
  }
}
if (objects.length === 0) {
  console.log('not ok - no object to validate');
  failed++;
}
process.exit(failed ? 1 : 0);
