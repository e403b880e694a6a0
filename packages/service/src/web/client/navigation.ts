// Page changes without reloads: links and code push an address, and the app re-renders for it.
import { h, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

const EVENT = 'app:navigate';

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event(EVENT));
}

/** The current address (path and query), updated on navigate() and on back/forward. */
export function useLocation(): { pathname: string; search: URLSearchParams } {
  const [location, setLocation] = useState(() => ({
    pathname: window.location.pathname,
    search: new URLSearchParams(window.location.search),
  }));
  useEffect(() => {
    const update = () => setLocation({ pathname: window.location.pathname, search: new URLSearchParams(window.location.search) });
    window.addEventListener('popstate', update);
    window.addEventListener(EVENT, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(EVENT, update);
    };
  }, []);
  return location;
}

export function Link(props: { href: string; class?: string; children?: ComponentChildren; 'aria-label'?: string }) {
  return h('a', {
    ...props,
    onClick: (event: MouseEvent) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      navigate(props.href);
    },
  });
}
