// The auth tables as Kysely sees them. Times are ISO 8601 UTC strings (see @app/database).
import type { Generated } from 'kysely';

export type AppKind = 'custom' | 'installed';
export type TokenKind = 'console' | 'oauth';

export interface AuthTables {
  /** One row (id 1): raised by every revocation, polled by every instance. */
  auth_revision: {
    id: number;
    revision: number;
  };
  api_apps: {
    id: Generated<number>;
    store_id: number;
    name: string;
    client_id: string;
    /** Nonce the secret is derived from; a new nonce is a new secret. */
    secret_nonce: string;
    secret_hash: string;
    kind: AppKind;
    redirect_uri: string | null;
    created_at: string;
  };
  api_tokens: {
    id: Generated<number>;
    store_id: number;
    app_id: number;
    kind: TokenKind;
    label: string;
    token_hash: string;
    refresh_hash: string | null;
    scopes: string;
    admin_user_id: number | null;
    created_at: string;
    expires_at: string | null;
    refresh_expires_at: string | null;
    revoked_at: string | null;
    /** The id of the first token of its OAuth grant; null for that first token and for console tokens. */
    family_id: number | null;
  };
  oauth_codes: {
    id: Generated<number>;
    store_id: number;
    auth_id: string;
    app_id: number;
    admin_user_id: number;
    code_nonce: string;
    code_hash: string;
    /** The scope text as the app asked for it: the platform's signature covers it verbatim. */
    scope_text: string;
    scopes: string;
    redirect_uri: string;
    code_challenge: string | null;
    code_challenge_method: string | null;
    created_at: string;
    expires_at: string;
    used_at: string | null;
    token_id: number | null;
  };
  /** The core's admin accounts; auth adds `access`. */
  users: {
    id: Generated<number>;
    store_id: number;
    email: string;
    password_hash: string;
    /** Resource groups the admin may see, space separated. */
    access: string;
    created_at: string;
    updated_at?: string | null;
  };
  admin_sessions: {
    id: Generated<number>;
    session_hash: string;
    admin_user_id: number;
    created_at: string;
    expires_at: string;
    ended_at: string | null;
  };
  admin_login_attempts: {
    id: Generated<number>;
    email: string;
    /** The client's address; null for attempts recorded before addresses were. */
    address: string | null;
    at: string;
    succeeded: boolean | number;
  };
  /** The core's store rows; auth reads and sets `plan`. */
  stores: {
    id: Generated<number>;
    name: string;
    plan: string;
    created_at: string;
  };
}
