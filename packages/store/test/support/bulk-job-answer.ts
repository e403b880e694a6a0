// What GET /bulk_operations/{id} answers, as the bulk tests read it.
export interface Job {
  id: number;
  state: string;
  rows_total: number | null;
  rows_done: number;
  rows_failed: number;
  error: string | null;
  result_url: string | null;
}
