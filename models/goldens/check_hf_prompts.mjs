// The Llama-family goldens' prompts against Hugging Face's own JavaScript: tokenizers.js encodes each
// case's text with the snapshot's tokenizer.json and tokenizer_config.json into the case's prompt
// ids (cut to its first N tokens where the case says so), and @huggingface/jinja renders the chat
// case's text from the snapshot's chat_template. Run by make_hf_llama_goldens.py --check, which
// writes the cases as JSON on stdin: {name: {folder, chat, cases: [{name, text,
// prompt_ids, add_special_tokens, first_tokens_of_text}]}}. Exits 1 on any mismatch.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import { Template } from "@huggingface/jinja";

const request = JSON.parse(readFileSync(0, "utf8"));
const readJson = (folder, file) => JSON.parse(readFileSync(join(folder, file), "utf8"));
let checked = 0;
const wrong = [];
for (const [name, { folder, chat, cases }] of Object.entries(request)) {
  const config = readJson(folder, "tokenizer_config.json");
  const tokenizer = new Tokenizer(readJson(folder, "tokenizer.json"), config);
  for (const c of cases) {
    let ids = tokenizer.encode(c.text, { add_special_tokens: c.add_special_tokens }).ids;
    if (c.first_tokens_of_text) ids = ids.slice(0, c.first_tokens_of_text);
    if (JSON.stringify(ids) !== JSON.stringify(c.prompt_ids)) {
      wrong.push(`${name} ${c.name}: tokenizers.js gives ${JSON.stringify(ids)}, the golden ${JSON.stringify(c.prompt_ids)}`);
    }
    if (c.name === "chat") {
      const rendered = new Template(config.chat_template).render({
        messages: chat, add_generation_prompt: true,
        bos_token: config.bos_token ?? "", eos_token: config.eos_token ?? "",
      });
      if (rendered !== c.text) wrong.push(`${name}: the chat template renders ${JSON.stringify(rendered)}`);
    }
    checked++;
  }
}
console.log(wrong.length ? wrong.join("\n") : `tokenizers.js and @huggingface/jinja agree with all ${checked} prompts`);
process.exit(wrong.length ? 1 : 0);
