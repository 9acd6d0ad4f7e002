/** Small pieces every page uses: loading state, error messages, confirmation, the page heading. */
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "../api.ts";

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `key` changes (and on reload); the last answer wins. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [generation, setGeneration] = useState(0);
  const current = useRef(0);
  useEffect(() => {
    const run = ++current.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => run === current.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => run === current.current && setState((previous) => ({ data: previous.data, error, loading: false })),
    );
  }, [key, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}

/** Re-runs `tick` every `ms` while the page is open. */
export function useInterval(tick: () => void, ms: number): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    const timer = setInterval(() => saved.current(), ms);
    return () => clearInterval(timer);
  }, [ms]);
}

export function ErrorMessage(props: { error: unknown }) {
  if (props.error === undefined || props.error === null) return null;
  return <p class="error" role="alert">{describeError(props.error)}</p>;
}

export function Status(props: { children: ComponentChildren }) {
  return <p class="status" role="status">{props.children}</p>;
}

/** The page's heading, focused when the page opens so a screen reader announces it. */
export function PageHeading(props: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return <h1 tabIndex={-1} ref={heading}>{props.children}</h1>;
}

/** A destructive button that asks again inline (keyboard reachable, no modal). */
export function ConfirmButton(props: { label: string; confirmLabel: string; question: string; onConfirm: () => Promise<void> | void }) {
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  if (!asking) return <button type="button" class="danger" onClick={() => setAsking(true)}>{props.label}</button>;
  return (
    <span class="confirm" role="group" aria-label={props.question}>
      <span>{props.question}</span>{" "}
      <button type="button" class="danger" ref={confirm} onClick={async () => { setAsking(false); await props.onConfirm(); }}>{props.confirmLabel}</button>{" "}
      <button type="button" onClick={() => setAsking(false)}>Cancel</button>
    </span>
  );
}
