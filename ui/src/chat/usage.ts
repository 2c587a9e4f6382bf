// Tokens and cost as the chat shows them: per turn under its last answer,
// and for the whole session above the composer. Pure, so the sums are
// unit-tested apart from the rendering.
import type { UsageView } from "../bindings";
import type { ViewMessage } from "./state";

export interface UsageSum {
  inputTokens: number;
  outputTokens: number;
  /** Summed where reported; null when no request of the span had a cost. */
  costUsd: number | null;
  /** Requests counted. */
  requests: number;
  /** The models that answered, in order of first use. */
  models: string[];
}

export function emptySum(): UsageSum {
  return { inputTokens: 0, outputTokens: 0, costUsd: null, requests: 0, models: [] };
}

function add(sum: UsageSum, u: UsageView | undefined, model: string | undefined): void {
  if (model && !sum.models.includes(model)) sum.models.push(model);
  if (!u) return;
  sum.inputTokens += u.inputTokens;
  sum.outputTokens += u.outputTokens;
  if (u.costUsd !== null) sum.costUsd = (sum.costUsd ?? 0) + u.costUsd;
  sum.requests += 1;
}

/** Each turn's usage (every request between two messages of the person),
 *  keyed by the turn's last assistant message. Turns with nothing reported
 *  and no model name are left out. */
export function turnUsage(messages: readonly ViewMessage[]): Map<string, UsageSum> {
  const out = new Map<string, UsageSum>();
  let sum = emptySum();
  let last: string | null = null;
  const close = () => {
    if (last && (sum.requests > 0 || sum.models.length > 0)) out.set(last, sum);
    sum = emptySum();
    last = null;
  };
  for (const m of messages) {
    if (m.role === "user") {
      close();
      continue;
    }
    if (m.role !== "assistant") continue;
    add(sum, m.usage, m.model);
    last = m.key;
  }
  close();
  return out;
}

/** The whole session's usage. */
export function sessionUsage(messages: readonly ViewMessage[]): UsageSum {
  const sum = emptySum();
  for (const m of messages) if (m.role === "assistant") add(sum, m.usage, m.model);
  return sum;
}

function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  return `${Math.round(n / 1000)}k`;
}

export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** "mock-model · 1.2k in · 56 out · $0.0012" */
export function formatUsage(sum: UsageSum): string {
  const parts: string[] = [...sum.models];
  if (sum.requests > 0) {
    parts.push(`${tokens(sum.inputTokens)} in`, `${tokens(sum.outputTokens)} out`);
    if (sum.costUsd !== null) parts.push(formatCost(sum.costUsd));
  }
  return parts.join(" · ");
}
