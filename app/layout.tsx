import type { Metadata } from "next";
import { headers } from "next/headers";
import "./globals.css";
import { IMAGES_FROM_OTHER_HOSTS_HEADER } from "../lib/security-headers";
import { ImagePolicyProvider } from "./_lib/image-policy";
import { Providers } from "./providers";
import { Nav } from "./_components/nav";

export const metadata: Metadata = { title: "EnvACE Studio", description: "World-rehearsal agentic RL: train, watch, compare" };

/**
 * Every page renders per request: its scripts carry the nonce of that request's Content-Security-Policy
 * (proxy.ts), which a page built ahead of time could not know.
 */
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const request = await headers();
  return (
    <html lang="en">
      <body>
        <ImagePolicyProvider otherHosts={request.get(IMAGES_FROM_OTHER_HOSTS_HEADER) === "1"}>
          <Providers>
            <Nav />
            <main className="main">{children}</main>
          </Providers>
        </ImagePolicyProvider>
      </body>
    </html>
  );
}
