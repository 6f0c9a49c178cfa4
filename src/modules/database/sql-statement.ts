// One statement of admin SQL as the guard, the body checks and the risk assessment read it.

export interface ParsedStatement {
  /** The statement's text exactly as written, without the separating semicolon. */
  text: string;
  /** The parser's node type, e.g. CreateStmt, TransactionStmt. */
  kind: string;
  node: Record<string, unknown>;
}
