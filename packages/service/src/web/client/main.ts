// Boot: the language first (English is built in; another one is fetched), then the app.
import { h, render } from 'preact';
import { App } from './app.ts';
import { initialLanguage, loadStrings, type Language, type Strings } from './i18n.ts';

let language: Language = initialLanguage();
let strings: Strings;
try {
  strings = await loadStrings(language);
} catch {
  language = 'en';
  strings = await loadStrings(language);
}
const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(h(App, { language, strings }), root);
}
