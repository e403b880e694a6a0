// How a chain picture shows a status: DNSViz's status words sorted into four tones, each a colour
// (AA contrast on white) and a dash pattern, so that a status reads without colour too. The one source
// for the engine's SVG and the service's web view: the service serves this very file to browsers, so
// it imports nothing and keeps to syntax Node can strip of its types.

/** The four tones, from good to bad. */
export type Tone = 'secure' | 'insecure' | 'indeterminate' | 'bogus';
export const TONES: readonly Tone[] = ['secure', 'insecure', 'indeterminate', 'bogus'];

export const TONE_LOOKS: Readonly<Record<Tone, { colour: string; dash?: string }>> = {
  secure: { colour: '#0a6b2b' },
  insecure: { colour: '#4a4a4a', dash: '2 3' },
  indeterminate: { colour: '#7a5200', dash: '7 4' },
  bogus: { colour: '#b00020', dash: '10 3 2 3' },
};

/** The tone of a status word of DNSViz's: of an RRSIG, a DS, a proof or a delegation. */
export function toneOf(status: string): Tone {
  if (status === 'SECURE' || status === 'VALID') return 'secure';
  if (status === 'INSECURE' || status === 'NONE') return 'insecure';
  if (status.startsWith('INDETERMINATE') || status === 'ALGORITHM_IGNORED' || status === 'INCOMPLETE' || status === 'LAME')
    return 'indeterminate';
  return 'bogus';
}

/**
 * The tone of a zone and of its DNSKEYs: its delegation's, since a key is only as trusted as the chain above it. The
 * root, and a zone whose delegation was not judged, have no chain above them to trust.
 */
export function zoneTone(delegationStatus: string | undefined): Tone {
  return delegationStatus === undefined ? 'insecure' : toneOf(delegationStatus);
}

/** The worst of some tones, or `none` when there are none. */
export function worstTone(tones: Iterable<Tone>, none: Tone): Tone {
  let found: Tone | undefined;
  for (const tone of tones) if (found === undefined || TONES.indexOf(tone) > TONES.indexOf(found)) found = tone;
  return found ?? none;
}
