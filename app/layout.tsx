import type { Metadata } from "next";
import "./globals.css";
import { Providers } from "./providers";
import { Nav } from "./_components/nav";

export const metadata: Metadata = { title: "EnvACE Studio", description: "World-rehearsal agentic RL: train, watch, compare" };

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>
          <Nav />
          <main className="main">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
