export const OTA_TOOLS = [] as never[];
