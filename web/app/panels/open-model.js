// Opening a model file from the reader's computer: the "Open a model file…" picker and a drop of a
// file anywhere on the page. A file bigger than the engine's memory is refused by its size, before
// any of it is read; then its safetensors header is read (its first bytes only) and a file whose
// tensors cannot fit is refused before anything is sent (web/model-header.js, the one rule);
// then the File itself goes to the engine's worker (a handle, not its bytes), which streams it into
// the engine with a progress bar and keeps the model under `file:NAME` (web/models.js). From there it is a model like a
// shipped one: the page's picker, the compare picker, every view, intervention and export.
// A page URL says `model=file:NAME`; a link to it cannot reopen the file, so the page asks for it.
// A refusal is said where the reader is: the page scrolls to the error and focuses it (a drop
// may come with the page scrolled far below the error's place).
import { findModel, isLocalFileId, localFileId, noteOpenedFile } from '../../models.js';
import { WASM_MEMORY_LIMIT, checkFileLength, checkModelFile, headerEnd } from '../../model-header.js';
import { addModelOption, showModeOptions } from './form.js';
import { formatBytes } from '../worker/client.js';
import { byId as $ } from '../util/html.js';
import { PENALTIES } from '../state/state.js';

/** Adds a model the manifest does not list to the compare picker too (once), beside the page's. */
export function offerModel(id) {
  addModelOption(id);
  const select = $('compare');
  if ([...select.options].some((o) => o.value === id)) return;
  let group = select.querySelector('optgroup[data-kind=file]');
  if (!group) {
    group = Object.assign(document.createElement('optgroup'), { label: 'Model files' });
    group.dataset.kind = 'file';
    select.append(group);
  }
  group.append(new Option($('model').querySelector(`option[value="${CSS.escape(id)}"]`)?.text ?? id, id));
}

/**
 * The model's own generation defaults (info.generation, when its file has them) as the form's
 * starting decoding: strategy, beam size, length penalty and α.
 */
export function applyGeneration(generation) {
  if (!generation) return;
  const mode = generation.strategy === 'beam' || generation.strategy === 'greedy' ? generation.strategy : null;
  if (mode) for (const r of document.querySelectorAll('input[name=mode]')) r.checked = r.value === mode;
  if (Number.isInteger(generation.beam_size) && generation.beam_size > 0) $('beam').value = generation.beam_size;
  if (PENALTIES.includes(generation.length_penalty)) $('lp').value = generation.length_penalty;
  if (Number.isFinite(generation.alpha)) $('alpha').value = generation.alpha;
  showModeOptions();
}

/**
 * A picked file, checked before it is read: refused by its size alone when it is bigger than the
 * engine's memory (the engine holds each tensor in at least its bytes in the file, web/model-header.js),
 * then by its header, read from its first bytes only, when its tensors cannot fit or the file
 * goes on after its last tensor; a header that cannot be read goes on to the engine, which says
 * what is wrong with it.
 */
export async function checkFile(file) {
  const what = `“${file.name}”`;
  if (file.size > WASM_MEMORY_LIMIT) {
    const gib = (n) => `${(n / 2 ** 30).toFixed(2)} GiB`;
    throw new Error(`${what} is too big: the file alone is ${gib(file.size)}, over the engine's limit of ${gib(WASM_MEMORY_LIMIT)} (nothing of it was read)`);
  }
  const end = headerEnd(new Uint8Array(await file.slice(0, 8).arrayBuffer()));
  const header = checkModelFile(new Uint8Array(await file.slice(0, end).arrayBuffer()), what);
  if (header) checkFileLength(header.fileBytes, file.size, what, `the file is ${file.size} bytes`);
  return header;
}

/** Shows the page's error box where the reader is: scrolled into view and focused (it is an alert). */
function revealError() {
  const box = $('error');
  if (box.hidden) return;
  box.tabIndex = -1;
  box.scrollIntoView({ block: 'center' });
  box.focus({ preventScroll: true });
}

export class OpenModel {
  #engine;
  #onOpened;
  #showError;
  #reading = null; // the local file id of a file being read

  /**
   * engine: the worker's client; onOpened(id): the model is in the worker and chosen in the
   * form (translate it); showError(e).
   */
  constructor({ engine, onOpened, showError }) {
    this.#engine = engine;
    this.#onOpened = onOpened;
    this.#showError = showError;
    const input = $('open-file');
    input.addEventListener('change', () => {
      const [file] = input.files;
      input.value = ''; // the same file again is a change too
      if (file) this.open(file);
    });
    const carriesFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files');
    // A file input of its own (the head sweep's dev set) takes its drops itself.
    const own = (e) => e.target instanceof Element && e.target.closest('input[type=file]');
    document.addEventListener('dragover', (e) => {
      if (!carriesFiles(e) || own(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
      document.body.classList.add('dropping');
    });
    document.addEventListener('dragleave', (e) => { if (!e.relatedTarget) document.body.classList.remove('dropping'); });
    document.addEventListener('drop', (e) => {
      document.body.classList.remove('dropping');
      if (!carriesFiles(e) || own(e)) return;
      e.preventDefault();
      const [file] = e.dataTransfer.files;
      if (file) this.open(file);
    });
  }

  /** Stops a file being read; false when none is. */
  cancel() {
    if (!this.#reading) return false;
    this.#engine.request('cancelLoad', { url: this.#reading });
    return true;
  }

  /** Opens `file` (a File): checked, read, sent to the worker, chosen in the form. */
  async open(file) {
    const app = $('app');
    app.dataset.opening = 'true';
    const bar = $('progress-bar');
    const progress = (text, { loaded, total }) => {
      $('progress').hidden = false;
      bar.max = total || 1;
      bar.value = loaded;
      $('progress-text').textContent = `${text} ${file.name}: ${formatBytes(loaded)} of ${formatBytes(total)}`;
    };
    const id = localFileId(file.name);
    if (this.#reading) this.#engine.request('cancelLoad', { url: this.#reading });
    this.#reading = id;
    try {
      await checkFile(file);
      const info = await this.#engine.request('file', { url: id, file }, (p) => progress('Reading', p));
      noteOpenedFile(file.name);
      offerModel(id);
      $('model').value = id;
      $('notice').hidden = true; // a link's "open the file again" is answered
      applyGeneration(info.generation);
      this.#showError(null);
      this.#onOpened(id);
    } catch (e) {
      this.#showError(new Error(`Could not open the model file “${file.name}”: ${e.message}`));
      revealError();
    } finally {
      if (this.#reading === id) this.#reading = null;
      $('progress').hidden = true;
      delete app.dataset.opening;
    }
  }

  /**
   * A link named a model file opened from someone's computer (`model=file:NAME`): no page can
   * reopen it by itself. Says so, with the picker at hand; true when `asked` is such a name.
   */
  noteReopen(asked) {
    // A file's name has no folder in it: `file:///etc/passwd` names no file a reader opened.
    if (!isLocalFileId(asked) || /[/\\]/.test(asked.slice('file:'.length))) return false;
    const notice = $('notice');
    notice.hidden = false;
    notice.textContent = `The link shows the model file “${asked.slice('file:'.length)}”, which was opened from a computer: a page cannot open it again by itself. Open the file again to see it: `;
    const open = Object.assign(document.createElement('button'), { type: 'button', className: 'small', textContent: 'Open a model file…' });
    open.addEventListener('click', () => $('open-file').click());
    notice.append(open);
    return true;
  }

  /**
   * A link's model-url was refused (`why`, web/app/state/model-url.js): says so, and which model
   * (`shown`) the page shows instead.
   */
  noteRefusedUrl(why, shown) {
    const notice = $('notice');
    notice.hidden = false;
    notice.textContent = `${why} Showing “${findModel(shown)?.label ?? shown}” instead.`;
    $('model').addEventListener('change', () => { notice.hidden = true; }, { once: true });
  }
}
