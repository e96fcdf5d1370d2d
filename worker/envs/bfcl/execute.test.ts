import { describe, expect, it } from "vitest";
import { PyDict, pyFromJsonText } from "../../../lib/python/values";
import type { BfclClassName } from "./data";
import { createBfclEnvironment, createScope } from "./world";
import { BfclInstanceSet, blockedFunction, instanceName, processMethodCalls, resultText } from "./execute";

const spec = (classes: BfclClassName[], config = "{}", id = "multi_turn_base_1") => ({
  id,
  involvedClasses: classes,
  initialConfig: pyFromJsonText(config) as PyDict,
  longContext: false,
});

describe("call strings as upstream evaluates them", () => {
  it("names instances like upstream and rewrites every `name(` with a known method, string literals included", () => {
    expect(instanceName("gpt-4o.1/x:y", "multi_turn_base_3", "MathAPI")).toBe("gpt_4o_1_x_y_multi_turn_base_3_MathAPI_instance");
    const owner = new Map([["ls", "I"]]);
    expect(processMethodCalls("echo(content='ls() and ls (x) and foo (y)')", owner)).toBe("echo(content='I.ls() and I.ls(x) and foo(y)')");
    expect(processMethodCalls("xls(1) é_ls() 9ls()", owner)).toBe("xls(1) é_ls() 9ls()");
  });

  it("refuses upstream's blocked functions", () => {
    expect(blockedFunction("exit()")).toBe("exit");
    expect(blockedFunction("os.remove(path)")).toBe("remove");
    expect(blockedFunction("I.rm(file_name='x')")).toBeUndefined();
    const env = createBfclEnvironment(spec(["MathAPI"]));
    expect(env.executeOne("quit()")).toBe("Error during execution: Function call quit is not allowed.");
  });

  it("stringifies results like upstream: str as is, dict as json.dumps or str(), the rest as str()", () => {
    expect(resultText("plain")).toBe("plain");
    expect(resultText(pyFromJsonText('{"a": 1.0, "b": [true, null]}'))).toBe('{"a": 1.0, "b": [true, null]}');
    expect(resultText([pyFromJsonText('{"a": 1}')])).toBe("[{'a': 1}]");
    expect(resultText(null)).toBe("None");
  });

  it("binds arguments with CPython's TypeError texts", () => {
    const env = createBfclEnvironment(spec(["GorillaFileSystem"]));
    expect(env.execute(["cd()", "cd('a', 'b')", "cd(path='x')", "cd('a', folder='b')", "ls(1, 2)", "tail()", "nope(1)"])).toEqual([
      "Error during execution: GorillaFileSystem.cd() missing 1 required positional argument: 'folder'",
      "Error during execution: GorillaFileSystem.cd() takes 2 positional arguments but 3 were given",
      "Error during execution: GorillaFileSystem.cd() got an unexpected keyword argument 'path'",
      "Error during execution: GorillaFileSystem.cd() got multiple values for argument 'folder'",
      "Error during execution: GorillaFileSystem.ls() takes from 1 to 2 positional arguments but 3 were given",
      "Error during execution: GorillaFileSystem.tail() missing 1 required positional argument: 'file_name'",
      "Error during execution: name 'nope' is not defined",
    ]);
  });

  it("says when a call uses Python outside the supported subset", () => {
    const env = createBfclEnvironment(spec(["MathAPI"]));
    expect(env.executeOne("add(a=1 if True else 2, b=1)")).toBe("Error during execution: unsupported Python syntax in a function call: 'if' expressions");
    expect(env.executeOne("add(a=f'x', b=1)")).toBe("Error during execution: unsupported Python syntax in a function call: f-strings");
    expect(env.executeOne("add(a=1, b=2")).toBe("Error during execution: '(' was never closed (<string>, line 1)");
  });

  it("evaluates nested calls, subscripts and arithmetic in arguments", () => {
    const env = createBfclEnvironment(spec(["MathAPI"]));
    expect(env.executeOne("add(a=mean(numbers=[1, 2])['result'], b=2 ** 3)")).toBe('{"result": 9.5}');
  });
});

describe("instances", () => {
  it("persist across turns of one environment and are never shared between environments", () => {
    const a = createBfclEnvironment(spec(["TicketAPI"]));
    const b = createBfclEnvironment(spec(["TicketAPI"]));
    a.execute(["ticket_login(username='u', password='p')", "create_ticket(title='t')"]);
    expect(a.executeOne("get_ticket(ticket_id=1)")).toContain('"title": "t"');
    expect(b.executeOne("get_ticket(ticket_id=1)")).toBe('{"error": "Ticket with ID 1 not found."}');
  });

  it("share Python module state (mutable default arguments) inside one scope only", () => {
    const config = '{"TwitterAPI": {"username": "u", "password": "p", "authenticated": true}}';
    const scope = createScope();
    const first = new BfclInstanceSet(spec(["TwitterAPI"], config), "m", scope);
    const second = new BfclInstanceSet(spec(["TwitterAPI"], config), "n", scope);
    first.execute(["post_tweet(content='a')", "mention(tweet_id=0, mentioned_usernames=['@x'])"]);
    // upstream: the default `mentions=[]` list was extended, so the next default-mention tweet shows it
    expect(second.executeOne("post_tweet(content='b')")).toBe('{"id": 0, "username": "u", "content": "b", "tags": [], "mentions": ["@x"]}');
    const elsewhere = createBfclEnvironment(spec(["TwitterAPI"], config));
    expect(elsewhere.executeOne("post_tweet(content='c')")).toBe('{"id": 0, "username": "u", "content": "c", "tags": [], "mentions": []}');
  });

  it("reports a scenario that cannot load as a task-data error", () => {
    expect(() => createBfclEnvironment(spec(["TwitterAPI"], '{"TwitterAPI": {"tweets": {"abc": {}}}}'))).toThrow(
      "task multi_turn_base_1: cannot load the TwitterAPI scenario: ValueError: invalid literal for int() with base 10: 'abc'",
    );
  });
});
