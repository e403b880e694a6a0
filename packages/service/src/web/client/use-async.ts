// Loads data for a page and re-loads it when its inputs change; a stale answer is dropped.
import { useCallback, useEffect, useState } from 'preact/hooks';

export type AsyncState<T> = { status: 'loading' } | { status: 'done'; value: T } | { status: 'failed'; error: Error };

export function useAsync<T>(load: () => Promise<T>, inputs: readonly unknown[]): AsyncState<T> & { reload: () => void } {
  const [state, setState] = useState<AsyncState<T>>({ status: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => (previous.status === 'done' ? previous : { status: 'loading' }));
    load().then(
      (value) => current && setState({ status: 'done', value }),
      (error: unknown) => current && setState({ status: 'failed', error: error instanceof Error ? error : new Error(String(error)) }),
    );
    return () => {
      current = false;
    };
  }, [...inputs, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...state, reload };
}
