"""
China's public holidays as upstream's toolkit gets them: `holidays.China(years=y).get(date)` with language=None, i.e.
the English msgids wherever gettext finds no zh_CN locale in LANGUAGE/LC_ALL/LC_MESSAGES/LANG (the usual server).
holidays 0.105 knows China from 1950 to 2100 (other years are empty). Writes worker/envs/vitabench/china-holidays.json.

  LANG=C.UTF-8 python scripts/vitabench/china_holidays.py > worker/envs/vitabench/china-holidays.json
"""
import json
import sys

import holidays

names = []
index = {}
days = []
for year in range(1950, 2101):
    for day, name in sorted(holidays.China(years=year).items()):
        if name not in index:
            index[name] = len(names)
            names.append(name)
        days.append(f"{day.isoformat()}={index[name]}")
json.dump({"source": f"holidays {holidays.__version__} China, language=None (English)", "years": [1950, 2100],
           "names": names, "days": days}, sys.stdout, ensure_ascii=False, indent=0)
sys.stdout.write("\n")
