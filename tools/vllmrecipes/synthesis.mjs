// What vLLM Recipes' own command builder gives for a list of choices.
//
//   node synthesis.mjs CHECKOUT < choices.jsonl > commands.jsonl
//
// Each input line is {recipe, strategies, taxonomy} data (read from the checkout's YAML by the
// caller) or a choice {variant, strategy, hardware, features, advanced, nodeCount, pdNodes,
// featureModes, kvOffload, omniTask}; each output line is what their src/lib/command-synthesis.js
// (resolveCommand, resolveOmniCommand with src/lib/omni-tasks.js) builds for it: per server its
// role, node, command (the text their page shows for copying) and env, and the router's command.
import path from "path";
import readline from "readline";
import { pathToFileURL } from "url";

const root = process.argv[2];
const lib = await import(pathToFileURL(path.join(root, "src/lib/command-synthesis.js")).href);
const omni = await import(pathToFileURL(path.join(root, "src/lib/omni-tasks.js")).href);
// The Advanced panel's options (CommandBuilder.jsx ADVANCED_OPTIONS): the args of each id.
const ADVANCED = {
  max_batched_8k: ["--max-num-batched-tokens", "8192"],
  max_num_seqs_256: ["--max-num-seqs", "256"],
  gpu_mem_095: ["--gpu-memory-utilization", "0.95"],
  max_model_len_auto: ["--max-model-len", "auto"],
  dcp_8: ["--decode-context-parallel-size", "8"],
  no_flashinfer_autotune: ["--no-enable-flashinfer-autotune"],
  ep_weight_filter: ["--enable-ep-weight-filter"],
};
let data = null;
const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const message = JSON.parse(line);
  if (message.recipe) { data = message; continue; }
  const { recipe, strategies, taxonomy } = data;
  const own = Object.fromEntries((recipe.advanced_options || []).map((o) => [o.id, o.args || []]));
  const advanced = (message.advanced || []).flatMap((id) => own[id] || ADVANCED[id] || []);
  let out;
  if (message.omniTask !== undefined) {
    const tasks = omni.resolveOmniTasks(recipe);
    const base = tasks.find((t) => t.key === message.omniTask) || tasks[0] || null;
    const task = omni.resolveOmniTaskForHardware(base, message.hardware);
    const profile = taxonomy.hardware_profiles[message.hardware];
    // without omni.tasks their page shows a stub command (CommandBuilder.jsx, omniRendered)
    const variant = recipe.variants?.[message.variant] || recipe.variants?.default || {};
    const made = task
      ? lib.resolveOmniCommand(recipe, message.variant, task, profile, message.hardware)
      : { command: `${recipe.omni?.serve_binary || "vllm serve"} ${variant.model_id || recipe.model?.model_id || "model"} --omni`, env: {} };
    out = { servers: [{ role: "main", node: 0, command: made.command, env: made.env }], router: null };
  } else {
    const made = lib.resolveCommand(recipe, message.variant, message.strategy, message.hardware, message.features,
      strategies, taxonomy, advanced, message.nodeCount || 1, message.pdNodes || null, message.featureModes || {},
      message.kvOffload || null);
    const servers = [];
    if (made.deployType === "pd_cluster") {
      for (const role of ["prefill", "decode"]) servers.push({ role, node: 0, command: made[role].command, env: made[role].env });
    } else if (made.deployType === "multi_node") {
      servers.push({ role: "main", node: 0, command: made.headCommand, env: made.env });
      made.workerCommands.forEach((command, i) => servers.push({ role: "main", node: i + 1, command, env: made.env }));
    } else {
      servers.push({ role: "main", node: 0, command: made.command, env: made.env });
    }
    out = { servers, router: made.router?.command || null };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
