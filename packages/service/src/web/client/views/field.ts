// A labelled input with its hint and its validation message, tied together for screen readers.
import { h, type ComponentChildren } from 'preact';

export interface FieldProps {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  error?: string | undefined;
  hint?: string;
  class?: string;
  inputMode?: 'text' | 'numeric' | 'url' | 'email';
  type?: 'text' | 'password';
  autoComplete?: string;
  spellcheck?: boolean;
  required?: boolean;
  /** Shown on the input's line (buttons that act on it). */
  after?: ComponentChildren;
}

export const errorId = (id: string) => `${id}-error`;

export function Field(props: FieldProps) {
  const described = [props.hint ? `${props.id}-hint` : '', props.error ? errorId(props.id) : ''].filter(Boolean).join(' ');
  return h(
    'div',
    { class: `field ${props.class ?? ''}` },
    h('label', { for: props.id }, props.label),
    props.hint && h('p', { class: 'hint', id: `${props.id}-hint` }, props.hint),
    // Above the input, not below: below it, the message would land under the buttons that share
    // the domain's line on a phone, and would push its input out of line with its neighbours' in a row.
    props.error && h('p', { class: 'field-error', id: errorId(props.id) }, props.error),
    h(
      'div',
      { class: 'input-line' },
      h('input', {
        id: props.id,
        type: props.type ?? 'text',
        value: props.value,
        onInput: (e: Event) => props.onInput((e.currentTarget as HTMLInputElement).value),
        inputMode: props.inputMode ?? 'text',
        autoComplete: props.autoComplete ?? 'off',
        spellcheck: props.spellcheck ?? false,
        autoCapitalize: 'off',
        required: props.required,
        'aria-invalid': props.error ? 'true' : undefined,
        'aria-describedby': described || undefined,
      }),
      props.after,
    ),
  );
}
