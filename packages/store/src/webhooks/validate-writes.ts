// Validate* events (ValidateProduct, ValidateCustomer) as a before-write check: the record as it would be written
// goes to the subscribers first, and their messages refuse the write.
import type { Row, StoreDatabase } from '../db/schema.ts';
import { parseRecordId } from '../http/record-id.ts';
import { ApiError } from '../model/api-error.ts';
import type { BeforeWriteCheck, PendingWrite } from '../records/before-write.ts';
import { recordsOf } from '../records/records.ts';
import { encryptedFieldsOf } from '../records/row-shape.ts';
import { validationMessages, type ReplyAsker } from './reply-events.ts';
import { validationOf } from './resource-events.ts';

export function validateWrites(database: StoreDatabase, asker: ReplyAsker): BeforeWriteCheck {
  return {
    checkFor(resource) {
      const validation = validationOf(resource.name);
      if (validation === undefined) return undefined;
      const { event, key } = validation;
      const records = recordsOf(database, resource);
      const encrypted = encryptedFieldsOf(resource);

      async function validate({ kind, id, body }: PendingWrite): Promise<void> {
        // An upsert whose id names a record updates it, so the subscribers see that record with the body applied.
        const target = kind === 'update' ? id : parseRecordId(typeof body.id === 'number' ? body.id : undefined);
        const current = target === undefined || target < 1 ? undefined : await records.get(target);
        if (kind === 'update' && current === undefined) return; // the write answers 404
        const candidate: Row = { ...current, ...body };
        for (const name of encrypted) delete candidate[name];
        const messages = validationMessages(await asker.ask(event, { [key]: candidate }));
        if (messages.length > 0) throw new ApiError(400, messages.join('; '));
      }

      return (write) => {
        if (write.kind === 'remove') return undefined;
        // Most of the time nobody validates, and that is known without a promise.
        const subscribed = asker.subscribed(event);
        if (subscribed === false) return undefined;
        return Promise.resolve(subscribed).then((yes) => (yes ? validate(write) : undefined));
      };
    },
  };
}
