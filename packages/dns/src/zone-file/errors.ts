export class ZoneFileError extends Error {
  override name = 'ZoneFileError';
  readonly line: number;
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.line = line;
  }
}
