// The page frame (header with the language switcher, main, footer) and the router.
import { h } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from './api.ts';
import {
  I18nContext,
  useI18n,
  LANGUAGE_TABLE,
  LANGUAGES,
  loadStrings,
  makeI18n,
  rememberLanguage,
  type Language,
  type Strings,
} from './i18n.ts';
import { Link, useLocation } from './navigation.ts';
import { parseRoute, paths, type Route } from '../../shared/page-routes.ts';
import { useAsync } from './use-async.ts';
import { BatchPage } from './views/batch-page.ts';
import { PageHeading } from './views/common.ts';
import { ComparePage } from './views/compare-page.ts';
import { HistoryPage } from './views/history-page.ts';
import { HomePage } from './views/home-page.ts';
import { ResultPage } from './views/result-page.ts';

function Page(props: { route: Route; search: URLSearchParams }) {
  const { route } = props;
  switch (route.page) {
    case 'home':
      return h(HomePage, { domain: props.search.get('domain') ?? '' });
    case 'result':
      return h(ResultPage, { id: route.id });
    case 'history':
      return h(HistoryPage, { domain: route.domain });
    case 'compare':
      return h(ComparePage, { from: route.from, to: route.to });
    case 'batch':
      return h(BatchPage, { id: route.id });
    case 'not-found':
      return h(NotFound, null);
  }
}

function NotFound() {
  const { t } = useI18n();
  return h(
    'section',
    null,
    h(PageHeading, null, t('not_found_title')),
    h('p', null, t('not_found_text')),
    h(Link, { href: paths.home() }, t('nav_new_test')),
  );
}

export function App(props: { language: Language; strings: Strings }) {
  const [{ language, strings }, setLanguage] = useState(props);
  const i18n = useMemo(() => makeI18n(language, strings), [language, strings]);
  const { pathname, search } = useLocation();
  const route = parseRoute(pathname);
  // The API may offer fewer languages than the interface has (LANGUAGE.locale in its configuration).
  const offered = useAsync(() => api.languageTags(), []);
  const versions = useAsync(() => api.versionInfo(), []);
  const languages = offered.status === 'done' ? LANGUAGES.filter((l) => offered.value.includes(l) || l === language) : LANGUAGES;

  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);

  // After a page change (not the first page), focus goes to the new page's heading, as a screen
  // reader user would expect after following a link.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById('page-heading')?.focus();
  }, [pathname]);

  const choose = (next: Language) => {
    rememberLanguage(next);
    loadStrings(next).then(
      (loaded) => setLanguage({ language: next, strings: loaded }),
      (error: unknown) => console.error(error),
    );
  };

  return h(
    I18nContext.Provider,
    { value: i18n },
    h('a', { class: 'skip-link', href: '#main' }, i18n.t('skip_to_content')),
    h(
      'header',
      { class: 'site-header' },
      h(Link, { href: paths.home(), class: 'brand' }, i18n.t('app_name')),
      h('nav', { 'aria-label': i18n.t('app_name') }, h(Link, { href: paths.home() }, i18n.t('nav_new_test'))),
      h(
        'div',
        { class: 'language' },
        h('label', { for: 'language' }, i18n.t('language')),
        h(
          'select',
          { id: 'language', value: language, onChange: (e: Event) => choose((e.currentTarget as HTMLSelectElement).value as Language) },
          languages.map((l) => h('option', { value: l, lang: l, key: l }, LANGUAGE_TABLE[l].name)),
        ),
      ),
    ),
    h('main', { id: 'main', tabIndex: -1 }, h(Page, { route, search, key: pathname })),
    h(
      'footer',
      { class: 'site-footer' },
      versions.status === 'done' &&
        h(
          'p',
          null,
          i18n.t('footer_versions', { engine: versions.value.service_engine ?? '', backend: versions.value.service_backend ?? '' }),
        ),
    ),
  );
}
