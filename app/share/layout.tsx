import type { Metadata } from "next";

// Shared pages carry a secret in their URL: never send it on as a referrer, never index it.
export const metadata: Metadata = { title: "Shared report · EnvACE Studio", referrer: "no-referrer", robots: { index: false, follow: false } };

export default function ShareLayout({ children }: { children: React.ReactNode }) {
  return children;
}
