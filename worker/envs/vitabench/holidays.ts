/**
 * China's public holidays as upstream's `get_date_holiday_info` reads them: `holidays.China(years=y).get(date)`.
 * The table (china-holidays.json) is holidays 0.105's China for 1950–2100, the years it knows (every other year is
 * empty), with the names it gives for language=None: gettext falls back to the English msgids wherever no zh_CN
 * locale is set (the usual server; scripts/vitabench/china_holidays.py). Two holidays on one day are "A; B".
 */
import table from "./china-holidays.json";

let byDate: Map<string, string> | undefined;

export function chinaHoliday(isoDate: string): string | undefined {
  if (!byDate) {
    byDate = new Map();
    for (const entry of table.days) {
      const [date, idx] = entry.split("=");
      byDate.set(date!, table.names[Number(idx)]!);
    }
  }
  return byDate.get(isoDate);
}
