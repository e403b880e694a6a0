// Copy buttons. Loaded from the console's own origin (CSP script-src 'self'); no inline handlers.
'use strict';

function selectText(element) {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

function say(button, text) {
  const status = button.parentElement.querySelector('.copy-status');
  if (status !== null) status.textContent = text;
  // The button keeps its text (its accessible name must contain what it shows); the status line says what happened.
  clearTimeout(button.copyTimer);
  button.copyTimer = setTimeout(() => {
    if (status !== null) status.textContent = '';
  }, 6000);
}

async function copy(button) {
  const source = document.getElementById(button.dataset.copy);
  if (source === null) return;
  const text = source.textContent.trim();
  try {
    await navigator.clipboard.writeText(text);
    say(button, 'Copied to the clipboard');
  } catch {
    // No clipboard access (permission refused, or an old browser): select the text for Ctrl+C.
    selectText(source);
    say(button, 'Selected: press Ctrl+C (or ⌘C) to copy');
  }
}

document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('button.copy[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', () => void copy(button));
  }
});
