/** Port of upstream `gorilla_file_system.py` (GorillaFileSystem, File, Directory). */
import { codePoints, pyIn, pyJoin, pyLen, pySliceFrom, pyStrip, splitlines, splitWhitespace, strSelf } from "../../../../lib/python/builtins";
import { formatFixed, pyNeg, pyTrueDiv } from "../../../../lib/python/numbers";
import { indexError, noAttribute, pyCompare, PyDict, pyEq, PyException, PyObject, pyRepr, pySorted, pyStr, pyTruthy, pyTypeName, valueError, type PyValue } from "../../../../lib/python/values";
import { longContextValue } from "../scope";
import { Backend, dict, method, type MethodSpec } from "./base";

export class File extends PyObject {
  readonly pyType = "File";
  constructor(
    public name: PyValue,
    public content: PyValue = "",
  ) {
    super();
  }
  repr(): string {
    return `<<File: ${pyStr(this.name)}, Content: ${pyStr(this.content)}>>`;
  }
  eq(other: PyValue): boolean {
    return other instanceof File && pyEq(this.name, other.name) && pyEq(this.content, other.content);
  }
  deepCopy(memo: Map<unknown, unknown>): File {
    const seen = memo.get(this);
    if (seen) return seen as File;
    const copy = new File(this.name, this.content);
    memo.set(this, copy);
    return copy;
  }
}

export class Directory extends PyObject {
  readonly pyType = "Directory";
  contents = new PyDict();
  constructor(
    public name: PyValue,
    public parent: Directory | null = null,
  ) {
    super();
  }
  repr(): string {
    const parent = this.parent ? pyStr(this.parent.name) : "None";
    return `<Directory: ${pyStr(this.name)}, Parent: ${parent}, Contents: ${pyRepr(this.contents)}>`;
  }
  eq(other: PyValue): boolean {
    return other instanceof Directory && pyEq(this.name, other.name) && pyEq(this.contents, other.contents);
  }
  deepCopy(memo: Map<unknown, unknown>): Directory {
    const seen = memo.get(this);
    if (seen) return seen as Directory;
    const copy = new Directory(this.name, null);
    memo.set(this, copy);
    copy.parent = this.parent ? this.parent.deepCopy(memo) : null;
    for (const [k, v] of this.contents.entries()) copy.contents.set(k, v instanceof PyObject ? v.deepCopy(memo) : v);
    return copy;
  }

  addFile(fileName: PyValue, content: PyValue = ""): void {
    if (pyIn(fileName, this.contents)) throw valueError(`File '${pyStr(fileName)}' already exists in directory '${pyStr(this.name)}'.`);
    this.contents.set(fileName, new File(fileName, content));
  }
  addDirectory(dirName: PyValue): void {
    if (pyIn(dirName, this.contents)) throw valueError(`Directory '${pyStr(dirName)}' already exists in directory '${pyStr(this.name)}'.`);
    this.contents.set(dirName, new Directory(dirName, this));
  }
  getItem(itemName: PyValue): PyValue {
    if (pyEq(itemName, ".")) return this;
    pyIn(itemName, this.contents); // unhashable → TypeError
    return this.contents.get(itemName) ?? null;
  }
}

const INVALID_NAME_CHARS = ['|', "/", "\\", "?", "%", "*", ":", '"', ">", "<"];

/** A File's content as str, or the AttributeError Python raises for `content.<method>()`. */
const fileText = (file: File, method: string): string => strSelf(file.content, method);

export class GorillaFileSystem extends Backend {
  readonly className = "GorillaFileSystem";
  longContext = false;
  root: Directory = new Directory("/", null);
  private currentDir: Directory = this.root;

  loadScenario(scenario: PyDict, longContext: boolean): void {
    this.longContext = longContext;
    this.root = new Directory("/", null);
    if (pyIn("root", scenario)) {
      const rootSpec = scenario.item("root");
      if (!(rootSpec instanceof PyDict)) throw noAttribute(rootSpec, "keys");
      if (rootSpec.size === 0) throw indexError("list index out of range");
      const rootName = rootSpec.keys()[0];
      const rootDir = new Directory(rootName, null);
      const rootEntry = rootSpec.item(rootName);
      this.root = this.loadDirectory(itemOf(rootEntry, "contents"), rootDir);
    }
    this.currentDir = this.root;
  }

  private loadDirectory(current: PyValue, parent: Directory): Directory {
    if (!(current instanceof PyDict)) throw noAttribute(current, "items");
    let isBottommost = true;
    for (const [name, data] of current.entries()) {
      const type = itemOf(data, "type");
      if (pyEq(type, "directory")) {
        isBottommost = false;
        const dir = this.loadDirectory(itemOf(data, "contents"), new Directory(name, parent));
        parent.contents.set(name, dir);
      } else if (pyEq(type, "file")) {
        let content = itemOf(data, "content");
        if (this.longContext && !pyIn(name, longContextValue(this.scope.longContext(), "FILES_TAIL_USED", "list"))) {
          if (typeof content !== "string") throw new PyException("TypeError", `unsupported operand type(s) for +=: '${pyTypeName(content)}' and 'str'`);
          content += longContextValue(this.scope.longContext(), "FILE_CONTENT_EXTENSION", "str");
        }
        parent.contents.set(name, new File(name, content));
      }
    }
    if (isBottommost && this.longContext) {
      for (const name of longContextValue(this.scope.longContext(), "POPULATE_FILE_EXTENSION", "list")) parent.addFile(name);
    }
    return parent;
  }

  publicState(): [string, PyValue][] {
    return [
      ["long_context", this.longContext],
      ["root", this.root],
    ];
  }

  private validName(name: PyValue): boolean {
    return !INVALID_NAME_CHARS.some((c) => pyIn(c, name));
  }

  private has(name: PyValue): boolean {
    return pyIn(name, this.currentDir.contents);
  }

  private navigate(path: PyValue): Directory | PyDict {
    if (path === null || pyEq(path, ".")) return this.currentDir;
    if (pyEq(path, "/")) return this.root;
    const text = strSelf(path, "strip");
    const dirs = pyStrip(text, "/", "both").split("/");
    let dir = text.startsWith("/") ? this.root : this.currentDir;
    for (const name of dirs) {
      const next = dir.getItem(name);
      if (next instanceof Directory) dir = next;
      else return dict({ error: `cd: '${text}': No such file or directory` });
    }
    return dir;
  }

  protected readonly methods: Record<string, MethodSpec> = {
    pwd: method([], () => {
      const path: PyValue[] = [];
      let dir: Directory | null = this.currentDir;
      // `dir.name != self.root` compares a name with a Directory, which is always true.
      while (dir !== null) {
        path.push(dir.name);
        dir = dir.parent;
      }
      return dict({ current_working_directory: "/" + pyJoin("/", path.reverse()) });
    }),

    ls: method([["a", false]], (a) => {
      let contents = this.currentDir.contents.keys();
      if (!pyTruthy(a)) contents = contents.filter((item) => !strSelf(item, "startswith").startsWith("."));
      return dict({ current_directory_content: contents });
    }),

    cd: method(["folder"], (folderArg) => {
      let folder = pyStrip(strSelf(folderArg, "rstrip"), "/", "right");
      if (folder === "") folder = "/";
      if (![".", "..", "/"].includes(folder) && folder.includes("/")) {
        return dict({ error: `cd: ${folder}: Unsupported path. Only one folder level at a time is supported.` });
      }
      if (folder === "..") {
        if (this.currentDir.parent) this.currentDir = this.currentDir.parent;
        else if (pyEq(this.root, this.currentDir)) return dict({ error: "Current directory is already the root. Cannot go back." });
        else return dict({ error: "cd: ..: No such directory" });
        return new PyDict();
      }
      const target = this.navigate(folder);
      if (target instanceof PyDict) return target;
      this.currentDir = target;
      return dict({ current_working_directory: target.name });
    }),

    mkdir: method(["dir_name"], (dirName) => {
      if (!this.validName(dirName)) return dict({ error: `mkdir: cannot create directory '${pyStr(dirName)}': Invalid character` });
      if (this.has(dirName)) return dict({ error: `mkdir: cannot create directory '${pyStr(dirName)}': File exists` });
      this.currentDir.addDirectory(dirName);
      return null;
    }),

    touch: method(["file_name"], (fileName) => {
      if (!this.validName(fileName)) return dict({ error: `touch: cannot touch '${pyStr(fileName)}': Invalid character` });
      if (this.has(fileName)) return dict({ error: `touch: cannot touch '${pyStr(fileName)}': File exists` });
      this.currentDir.addFile(fileName);
      return null;
    }),

    echo: method(["content", ["file_name", null]], (content, fileName) => {
      if (fileName === null) return dict({ terminal_output: content });
      if (!this.validName(fileName)) return dict({ error: `echo: cannot write to '${pyStr(fileName)}': Invalid character` });
      if (pyTruthy(fileName)) {
        if (this.has(fileName)) {
          const item = this.currentDir.getItem(fileName);
          if (!(item instanceof File)) throw noAttribute(item, "_write");
          item.content = content;
          return null;
        }
        return dict({ error: `echo: cannot write to '${pyStr(fileName)}': No such file` });
      }
      return dict({ terminal_output: content });
    }),

    cat: method(["file_name"], (fileName) => {
      if (!this.validName(fileName)) return dict({ error: `cat: '${pyStr(fileName)}': Invalid character` });
      if (this.has(fileName)) {
        const item = this.currentDir.getItem(fileName);
        if (item instanceof File) return dict({ file_content: item.content });
        return dict({ error: `cat: '${pyStr(fileName)}': Is a directory` });
      }
      return dict({ error: `cat: '${pyStr(fileName)}': No such file or directory` });
    }),

    find: method([["path", "."], ["name", null]], (path, name) => {
      const matches: PyValue[] = [];
      const target = this.navigate(path);
      if (target instanceof PyDict) {
        const original = target.get("error") ?? "";
        if (typeof original === "string" && original.startsWith("cd:")) return dict({ error: original.replace("cd:", "find:") });
        return target;
      }
      const search = (directory: Directory, basePath: string) => {
        for (const [itemName, item] of directory.contents.entries()) {
          const itemPath = `${basePath}/${pyStr(itemName)}`;
          if (name === null || pyIn(name, itemName)) matches.push(itemPath);
          if (item instanceof Directory) search(item, itemPath);
        }
      };
      search(target, pyStrip(strSelf(path, "rstrip"), "/", "right"));
      return dict({ matches });
    }),

    wc: method(["file_name", ["mode", "l"]], (fileName, mode) => {
      if (!pyIn(mode, ["l", "w", "c"])) return dict({ error: `wc: invalid mode '${pyStr(mode)}'` });
      if (this.has(fileName)) {
        const file = this.currentDir.getItem(fileName);
        if (file instanceof File) {
          if (pyEq(mode, "l")) return dict({ count: BigInt(splitlines(fileText(file, "splitlines")).length), type: "lines" });
          if (pyEq(mode, "w")) return dict({ count: BigInt(splitWhitespace(fileText(file, "split")).length), type: "words" });
          return dict({ count: BigInt(pyLen(file.content)), type: "characters" });
        }
      }
      return dict({ error: `wc: ${pyStr(fileName)}: No such file or directory` });
    }),

    sort: method(["file_name"], (fileName) => {
      if (this.has(fileName)) {
        const file = this.currentDir.getItem(fileName);
        if (file instanceof File) return dict({ sorted_content: pySorted(splitlines(fileText(file, "splitlines"))).join("\n") });
      }
      return dict({ error: `sort: ${pyStr(fileName)}: No such file or directory` });
    }),

    grep: method(["file_name", "pattern"], (fileName, pattern) => {
      if (this.has(fileName)) {
        const file = this.currentDir.getItem(fileName);
        if (file instanceof File) {
          const matching = splitlines(fileText(file, "splitlines")).filter((line) => pyIn(pattern, line));
          return dict({ matching_lines: matching });
        }
      }
      return dict({ error: `grep: ${pyStr(fileName)}: No such file or directory` });
    }),

    du: method([["human_readable", false]], (humanReadable) => {
      const sizeOf = (item: PyValue): bigint => {
        if (item instanceof File) return BigInt(utf8Size(item.content));
        if (item instanceof Directory) return item.contents.values().reduce((sum: bigint, child) => sum + sizeOf(child), 0n);
        return 0n;
      };
      let total: PyValue = sizeOf(this.currentDir);
      let sizeText: string;
      if (pyTruthy(humanReadable)) {
        sizeText = "";
        let found = false;
        for (const unit of ["B", "KB", "MB", "GB", "TB"]) {
          if (pyCompare(total, "<", 1024n)) {
            sizeText = `${formatFixed(total, 2)} ${unit}`;
            found = true;
            break;
          }
          total = pyTrueDiv(total, 1024n);
        }
        if (!found) sizeText = `${formatFixed(total, 2)} PB`;
      } else sizeText = `${pyStr(total)} bytes`;
      return dict({ disk_usage: sizeText });
    }),

    tail: method(["file_name", ["lines", 10n]], (fileName, linesArg) => {
      if (this.has(fileName)) {
        const file = this.currentDir.getItem(fileName);
        if (file instanceof File) {
          const content = splitlines(fileText(file, "splitlines"));
          let lines = linesArg;
          if (pyCompare(lines, ">", BigInt(content.length))) lines = BigInt(content.length);
          const last = pySliceFrom(content, pyNeg(lines));
          return dict({ last_lines: last.join("\n") });
        }
      }
      return dict({ error: `tail: ${pyStr(fileName)}: No such file or directory` });
    }),

    diff: method(["file_name1", "file_name2"], (name1, name2) => {
      if (this.has(name1) && this.has(name2)) {
        const file1 = this.currentDir.getItem(name1);
        const file2 = this.currentDir.getItem(name2);
        if (file1 instanceof File && file2 instanceof File) {
          const a = splitlines(fileText(file1, "splitlines"));
          const b = splitlines(fileText(file2, "splitlines"));
          const lines: string[] = [];
          for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) lines.push(`- ${a[i]}\n+ ${b[i]}`);
          return dict({ diff_lines: lines.join("\n") });
        }
      }
      return dict({ error: `diff: ${pyStr(name1)} or ${pyStr(name2)}: No such file or directory` });
    }),

    mv: method(["source", "destination"], (source, destination) => {
      if (!this.has(source)) return dict({ error: `mv: cannot move '${pyStr(source)}': No such file or directory` });
      const item = this.currentDir.getItem(source);
      if (!(item instanceof File) && !(item instanceof Directory)) return dict({ error: `mv: cannot move '${pyStr(source)}': Not a file or directory` });
      if (pyIn("/", destination)) return dict({ error: "mv: path not allowed in destination. Provide only a file or directory name." });
      if (this.has(destination)) {
        const dest = this.currentDir.getItem(destination);
        if (dest instanceof Directory) {
          if (pyIn(pyStr(source), dest.contents)) {
            return dict({ error: `mv: cannot move '${pyStr(source)}' to '${pyStr(destination)}/${pyStr(source)}': File exists` });
          }
          this.currentDir.contents.delete(source);
          if (item instanceof File) dest.addFile(source, item.content);
          else {
            dest.addDirectory(source);
            (dest.contents.get(source) as Directory).contents = item.contents;
          }
          return dict({ result: `'${pyStr(source)}' moved to '${pyStr(destination)}/${pyStr(source)}'` });
        }
        return dict({ error: `mv: cannot move '${pyStr(source)}' to '${pyStr(destination)}': Not a directory` });
      }
      this.currentDir.contents.delete(source);
      if (item instanceof File) this.currentDir.addFile(destination, item.content);
      else {
        this.currentDir.addDirectory(destination);
        (this.currentDir.contents.get(destination) as Directory).contents = item.contents;
      }
      return dict({ result: `'${pyStr(source)}' moved to '${pyStr(destination)}'` });
    }),

    rm: method(["file_name"], (fileName) => {
      if (this.has(fileName)) {
        const item = this.currentDir.getItem(fileName);
        if (item instanceof File || item instanceof Directory) {
          this.currentDir.contents.delete(fileName);
          return dict({ result: `'${pyStr(fileName)}' removed` });
        }
        return dict({ error: `rm: cannot remove '${pyStr(fileName)}': Not a file or directory` });
      }
      return dict({ error: `rm: cannot remove '${pyStr(fileName)}': No such file or directory` });
    }),

    rmdir: method(["dir_name"], (dirName) => {
      if (this.has(dirName)) {
        const item = this.currentDir.getItem(dirName);
        if (item instanceof Directory) {
          if (item.contents.size > 0) return dict({ error: `rmdir: cannot remove '${pyStr(dirName)}': Directory not empty` });
          this.currentDir.contents.delete(dirName);
          return dict({ result: `'${pyStr(dirName)}' removed` });
        }
        return dict({ error: `rmdir: cannot remove '${pyStr(dirName)}': Not a directory` });
      }
      return dict({ error: `rmdir: cannot remove '${pyStr(dirName)}': No such file or directory` });
    }),

    cp: method(["source", "destination"], (source, destination) => {
      if (!this.has(source)) return dict({ error: `cp: cannot copy '${pyStr(source)}': No such file or directory` });
      const item = this.currentDir.getItem(source);
      if (!(item instanceof File) && !(item instanceof Directory)) return dict({ error: `cp: cannot copy '${pyStr(source)}': Not a file or directory` });
      if (pyIn("/", destination)) return dict({ error: "cp: path not allowed in destination. Provide only a file or directory name." });
      if (this.has(destination)) {
        const dest = this.currentDir.getItem(destination);
        if (dest instanceof Directory) {
          const newDestination = `${pyStr(destination)}/${pyStr(source)}`;
          if (dest.contents.has(newDestination)) {
            return dict({ error: `cp: cannot copy '${pyStr(source)}' to '${pyStr(destination)}/${pyStr(source)}': File exists` });
          }
          if (item instanceof File) dest.addFile(source, item.content);
          else {
            dest.addDirectory(source);
            (dest.contents.get(source) as Directory).contents = item.contents.copy();
          }
          return dict({ result: `'${pyStr(source)}' copied to '${pyStr(destination)}/${pyStr(source)}'` });
        }
        return dict({ error: `cp: cannot copy '${pyStr(source)}' to '${pyStr(destination)}': Not a directory` });
      }
      if (item instanceof File) this.currentDir.addFile(destination, item.content);
      else {
        this.currentDir.addDirectory(destination);
        (this.currentDir.contents.get(destination) as Directory).contents = item.contents.copy();
      }
      return dict({ result: `'${pyStr(source)}' copied to '${pyStr(destination)}'` });
    }),
  };
}

/** `d[key]` for scenario data (KeyError / TypeError as Python raises). */
function itemOf(container: PyValue, key: string): PyValue {
  if (container instanceof PyDict) return container.item(key);
  throw new PyException("TypeError", `'${pyTypeName(container)}' object is not subscriptable`);
}

/** `len(content.encode("utf-8"))`. */
function utf8Size(content: PyValue): number {
  const text = strSelf(content, "encode");
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(text);
  if (lone) {
    const position = codePoints(text.slice(0, lone.index)).length;
    throw new PyException(
      "UnicodeEncodeError",
      `'utf-8' codec can't encode character '\\u${lone[0].charCodeAt(0).toString(16)}' in position ${position}: surrogates not allowed`,
    );
  }
  return Buffer.byteLength(text, "utf8");
}

