// SPDX-License-Identifier: Apache-2.0
//
// Validates Kubernetes objects against the Kubernetes and prometheus-operator
// OpenAPI schemas of the npm packages kubernetes-models and
// @kubernetes-models/prometheus-operator (package.json; `npm ci` in this
// directory, which scripts/install-deps.sh --test runs).
//   node validate.mjs < rendered.json
// rendered.json: {"name of a rendering": [objects]} (assert-security.py writes
// what `kubectl kustomize` renders for each combination of the components).
// Prints one line per object, and a rendering's count; exit 1 if an object
// fails its schema or has a kind no schema knows, or a rendering is empty.

const groups = {
  'v1': 'kubernetes-models/v1',
  'apps/v1': 'kubernetes-models/apps/v1',
  'monitoring.coreos.com/v1': '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
};

let input = '';
for await (const chunk of process.stdin) input += chunk;
const renderings = JSON.parse(input);
let failed = 0;
let valid = 0;
for (const [name, objects] of Object.entries(renderings)) {
  for (const obj of objects) {
    const what = `${name}: ${obj.apiVersion} ${obj.kind} ${obj.metadata?.name}`;
    const module = groups[obj.apiVersion];
    const Model = module ? (await import(module))[obj.kind] : undefined;
    if (!Model) {
      console.log(`not ok - ${what}: no schema for this apiVersion and kind`);
      failed++;
      continue;
    }
    try {
      new Model(obj).validate();
      valid++;
    } catch (e) {
      console.log(`not ok - ${what}: ${e.message}`);
      failed++;
    }
  }
  if (objects.length === 0) {
    console.log(`not ok - ${name}: no object to validate`);
    failed++;
  }
}
const n = Object.keys(renderings).length;
console.log(`${failed || n === 0 ? 'not ok' : 'ok'} - ${valid} objects of ${n} renderings valid, ${failed} not`);
process.exit(failed || n === 0 ? 1 : 0);
