/**
 * TEST DOUBLE — instruments everything outside the policy that a test-time episode could reach (the task's
 * environment, the external tool simulator, the user simulator, the judge, the episode scorer) and FAILS
 * any contact made before the committed execution: the call throws and is recorded as a violation, so a
 * test can assert there were none. The committed execution is taken to begin once the policy has written
 * the rehearsal memory (the last private step of worker/engine/testtime.ts).
 */
import type { ChatClient, GenerateRequest, PolicyClient } from "../../worker/engine/io";
import { MEMORY_SYSTEM_PROMPT } from "../../worker/engine/testtime";
import type { EnvironmentFactory, TaskInstance } from "../../worker/engine/types";

export class ExternalContactGuard {
  /** True once the memory is written: contacts are allowed from then on. */
  committed = false;
  /** Contacts made too early (each also threw inside the engine). */
  readonly violations: string[] = [];
  /** Every contact, in order, e.g. "environment.create", "user simulator". */
  readonly contacts: string[] = [];

  private touch(what: string): void {
    this.contacts.push(what);
    if (!this.committed) {
      this.violations.push(what);
      throw new Error(`external contact before the committed execution: ${what}`);
    }
  }

  /** The policy, unchanged, except that it notes when the memory has been written. */
  policy(inner: PolicyClient): PolicyClient {
    return {
      generate: async (req: GenerateRequest) => {
        const out = await inner.generate(req);
        if (req.messages[0]?.content === MEMORY_SYSTEM_PROMPT) this.committed = true;
        return out;
      },
    };
  }

  environment(factory: EnvironmentFactory): EnvironmentFactory {
    return {
      create: async () => {
        this.touch("environment.create");
        const world = await factory.create();
        return {
          execute: (name, args) => {
            this.touch(`environment.execute ${name}`);
            return world.execute(name, args);
          },
          snapshot: () => world.snapshot(),
          close: () => world.close?.(),
        };
      },
    };
  }

  chatClient(label: string, inner: ChatClient): ChatClient {
    return {
      complete: async (req) => {
        this.touch(label);
        return inner.complete(req);
      },
    };
  }

  /** The instance with its environment factory and end-of-episode scorer instrumented. */
  instance(instance: TaskInstance): TaskInstance {
    const score = instance.scoreEpisode;
    return {
      ...instance,
      ...(instance.environment ? { environment: this.environment(instance.environment) } : {}),
      ...(score
        ? {
            scoreEpisode: (ctx) => {
              this.touch("scoreEpisode");
              return score.call(instance, ctx);
            },
          }
        : {}),
    };
  }
}
