"use client";
/**
 * A setting whose value is a list of objects (schedule.evalSuites): one card per item with the item's
 * fields, as the run settings describe them (contracts/run-settings.ts "object-list"), plus add and
 * remove. Each item field is keyed `<list key>.<index>.<field>` — the path the API names in its errors.
 */
import type { RunSetting } from "@/contracts/run-settings";
import { getPath, setPath } from "../../_lib/schema-form";

type ObjectList = Extract<RunSetting, { kind: "object-list" }>;

/** The item fields of a list setting at `index`, keyed and pathed inside the whole config. */
export function itemFields(setting: ObjectList, index: number): RunSetting[] {
  return setting.fields.map((f) => ({ ...f, key: `${setting.key}.${index}.${f.key}`, path: [...setting.path, String(index), ...f.path] }));
}

export function ObjectListField({
  setting,
  value,
  errors,
  onChange,
  renderField,
}: {
  setting: ObjectList;
  value: unknown;
  errors: Record<string, string>;
  onChange: (v: unknown) => void;
  renderField: (field: RunSetting, value: unknown, error: string | undefined, onChange: (v: unknown) => void) => React.ReactNode;
}) {
  const items = Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
  const listError = errors[setting.key];
  const update = (index: number, item: Record<string, unknown>) => onChange(items.map((x, i) => (i === index ? item : x)));
  const addId = `field-${setting.path.join("-")}-add`;
  const addLabel = `Add ${setting.label.toLowerCase().replace(/s$/, "")}`;
  return (
    <div className={`field object-list ${listError ? "has-error" : ""}`} data-field={setting.key}>
      {/* Labels the add button (its own aria-label keeps its name), as every other setting has a label. */}
      <label htmlFor={addId}>{setting.label}</label>
      <span className="help">{setting.description}</span>
      <span className="default" data-testid="setting-default">
        {Array.isArray(setting.default) && setting.default.length > 0 ? `Default: ${setting.default.length} items` : "Default: none"}
      </span>
      {items.map((item, index) => (
        <fieldset key={index} className="card object-list-item" data-testid="object-list-item">
          <legend>
            {setting.label} {index + 1}
            {typeof item.name === "string" && item.name ? `: ${item.name}` : ""}
          </legend>
          <div className="grid">
            {itemFields(setting, index).map((f, fi) => {
              const local = setting.fields[fi]!.path;
              return (
                <div key={f.key}>{renderField(f, getPath(item, local), errors[f.key], (v) => update(index, setPath(item, local, v)))}</div>
              );
            })}
          </div>
          <button type="button" onClick={() => onChange(items.filter((_, i) => i !== index))} aria-label={`remove ${setting.label.toLowerCase()} ${index + 1}`}>
            Remove
          </button>
        </fieldset>
      ))}
      <button type="button" id={addId} onClick={() => onChange([...items, {}])} data-testid={`add-${setting.key}`} aria-label={addLabel}>
        {addLabel}
      </button>
      {listError && (
        <span role="alert" className="error">
          {listError}
        </span>
      )}
    </div>
  );
}
