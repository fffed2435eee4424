// Stand-in for ajv-i18n inside runpod's bundles (scripts/bundle.mjs and build-exe.mjs alias it here). Its one user,
// @kubernetes-models/validate, calls localize.en only; the package's index holds every language's messages (150
// KB of the executable's script, deserialized on each start). The English function is the package's own.
// (Imported by its path: an alias of 'ajv-i18n' would also take 'ajv-i18n/…' here.)
import en from '../../node_modules/ajv-i18n/localize/en/index.js';

export default { en };
