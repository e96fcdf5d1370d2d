"use client";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../_lib/trpc";
import { authClient } from "../_lib/auth-client";

const links = [
  { href: "/runs", label: "Runs" },
  { href: "/studies", label: "Studies" },
  { href: "/compare", label: "Compare" },
  { href: "/reports", label: "Reports" },
  { href: "/datasets", label: "Datasets" },
  { href: "/nodes", label: "Nodes" },
  { href: "/mcp-servers", label: "MCP servers" },
  { href: "/settings", label: "Settings" },
  { href: "/api-docs", label: "API" },
];

export function Nav() {
  const trpc = useTRPC();
  const pathname = usePathname();
  const router = useRouter();
  const qc = useQueryClient();
  const me = useQuery(trpc.users.me.queryOptions());
  if (pathname.startsWith("/share/")) return null;
  return (
    <header className="nav">
      <Link href="/runs" className="brand">EnvACE Studio</Link>
      {me.data && (
        <nav aria-label="Main">
          {links.map((l) => (
            <Link key={l.href} href={l.href} className={pathname.startsWith(l.href) ? "active" : ""}>
              {l.label}
            </Link>
          ))}
        </nav>
      )}
      <div className="spacer" />
      {me.data ? (
        <div className="who">
          <span data-testid="current-user">{me.data.email}</span> <span className="badge" data-testid="current-role">{me.data.role}</span>
          <button
            className="link"
            onClick={async () => {
              await authClient.signOut();
              await qc.invalidateQueries();
              router.push("/sign-in");
            }}
          >
            Sign out
          </button>
        </div>
      ) : null}
    </header>
  );
}
