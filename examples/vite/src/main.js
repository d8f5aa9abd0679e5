import 'attnscope/widget'; // registers <attn-scope>

const widget = document.querySelector('attn-scope');
document.getElementById('another').addEventListener('click', () => widget.setAttribute('src', 'i want to drink water'));
const toggle = document.getElementById('toggle');
toggle.addEventListener('click', () => {
  if (widget.isConnected) widget.remove(); // closes its session in the engine
  else toggle.after(widget);
  toggle.textContent = `${widget.isConnected ? 'Hide' : 'Show'} the widget`;
});
