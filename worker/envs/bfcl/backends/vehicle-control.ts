/** Port of upstream `vehicle_control.py` (VehicleControlAPI). */
import { dictView, pyGetItem, pyIn, pyIter, pyJoin, pySetItem } from "../../../../lib/python/builtins";
import { pyAdd, pyFloat, pyMod, pyMul, pySub, pyTrueDiv } from "../../../../lib/python/numbers";
import { pyCompare, PyDict, pyEq, pyTruthy, type PyValue } from "../../../../lib/python/values";
import { longContextValue } from "../scope";
import { Backend, dict, method, scenarioGet, type MethodSpec } from "./base";
import { randomFromSeed } from "./message-api";

const MAX_FUEL_LEVEL = 50n;
const MIN_FUEL_LEVEL = 0.0;
const MILE_PER_GALLON = 20.0;

const defaultDoors = () => dict({ driver: "unlocked", passenger: "unlocked", rear_left: "unlocked", rear_right: "unlocked" });

/** The distance table of estimate_distance (either direction). */
const DISTANCES: [string, string, number][] = [
  ["83214", "74532", 750.0],
  ["56108", "62947", 320.0],
  ["71354", "83462", 450.0],
  ["47329", "52013", 290.0],
  ["69238", "51479", 630.0],
  ["94016", "83214", 980.0],
  ["94016", "94704", 600.0],
  ["94704", "08540", 2550.0],
  ["94016", "08540", 1950.0],
  ["62947", "47329", 1053.0],
  ["94016", "62947", 780.0],
  ["74532", "94016", 880.0],
];

const ZIPCODES: [string, string][] = [
  ["Rivermist", "83214"],
  ["Stonebrook", "74532"],
  ["Maplecrest", "56108"],
  ["Silverpine", "62947"],
  ["Shadowridge", "71354"],
  ["Sunset Valley", "83462"],
  ["Oakendale", "47329"],
  ["Willowbend", "52013"],
  ["Crescent Hollow", "69238"],
  ["Autumnville", "51479"],
  ["San Francisco", "94016"],
];

export class VehicleControlAPI extends Backend {
  readonly className = "VehicleControlAPI";
  private random = randomFromSeed(141053n, "VehicleControlAPI");
  fuelLevel: PyValue = 0.0;
  batteryVoltage: PyValue = 12.6;
  engineState: PyValue = "stopped";
  remainingUnlockedDoors: PyValue = 4n;
  doorStatus: PyValue = defaultDoors();
  acTemperature: PyValue = 25.0;
  fanSpeed: PyValue = 50n;
  acMode: PyValue = "auto";
  humidityLevel: PyValue = 50.0;
  headLightStatus: PyValue = "off";
  parkingBrakeStatus: PyValue = "released";
  private parkingBrakeForce: PyValue = 0.0;
  private slopeAngle: PyValue = 0.0;
  brakePedalStatus: PyValue = "released";
  private brakePedalForce: PyValue = 0.0;
  distanceToNextVehicle: PyValue = 50.0;
  cruiseStatus: PyValue = "inactive";
  destination: PyValue = "None";
  frontLeftTirePressure: PyValue = 32.0;
  frontRightTirePressure: PyValue = 32.0;
  rearLeftTirePressure: PyValue = 30.0;
  rearRightTirePressure: PyValue = 30.0;
  longContext = false;

  loadScenario(s: PyDict, longContext: boolean): void {
    this.random = randomFromSeed(scenarioGet(s, "random_seed", 141053n), "VehicleControlAPI");
    this.fuelLevel = scenarioGet(s, "fuelLevel", 0.0);
    this.batteryVoltage = scenarioGet(s, "batteryVoltage", 12.6);
    this.engineState = scenarioGet(s, "engineState", "stopped");
    this.remainingUnlockedDoors = scenarioGet(s, "remainingUnlockedDoors", 4n);
    this.doorStatus = scenarioGet(s, "doorStatus", defaultDoors());
    const locked = dictView(this.doorStatus, "keys").filter((door) => pyEq(pyGetItem(this.doorStatus, door), "locked")).length;
    this.remainingUnlockedDoors = 4n - BigInt(locked);
    this.acTemperature = scenarioGet(s, "acTemperature", 25.0);
    this.fanSpeed = scenarioGet(s, "fanSpeed", 50n);
    this.acMode = scenarioGet(s, "acMode", "auto");
    this.humidityLevel = scenarioGet(s, "humidityLevel", 50.0);
    this.headLightStatus = scenarioGet(s, "headLightStatus", "off");
    this.parkingBrakeStatus = scenarioGet(s, "parkingBrakeStatus", "released");
    this.parkingBrakeForce = scenarioGet(s, "parkingBrakeForce", 0.0);
    this.slopeAngle = scenarioGet(s, "slopeAngle", 0.0);
    this.brakePedalStatus = scenarioGet(s, "brakePedalStatus", "released");
    this.brakePedalForce = scenarioGet(s, "brakePedalForce", 0.0);
    this.distanceToNextVehicle = scenarioGet(s, "distanceToNextVehicle", 50.0);
    this.cruiseStatus = scenarioGet(s, "cruiseStatus", "inactive");
    this.destination = scenarioGet(s, "destination", "None");
    this.frontLeftTirePressure = scenarioGet(s, "frontLeftTirePressure", 32.0);
    this.frontRightTirePressure = scenarioGet(s, "frontRightTirePressure", 32.0);
    this.rearLeftTirePressure = scenarioGet(s, "rearLeftTirePressure", 30.0);
    this.rearRightTirePressure = scenarioGet(s, "rearRightTirePressure", 30.0);
    this.longContext = longContext;
  }

  publicState(): [string, PyValue][] {
    return [
      ["fuelLevel", this.fuelLevel],
      ["batteryVoltage", this.batteryVoltage],
      ["engine_state", this.engineState],
      ["remainingUnlockedDoors", this.remainingUnlockedDoors],
      ["doorStatus", this.doorStatus],
      ["acTemperature", this.acTemperature],
      ["fanSpeed", this.fanSpeed],
      ["acMode", this.acMode],
      ["humidityLevel", this.humidityLevel],
      ["headLightStatus", this.headLightStatus],
      ["parkingBrakeStatus", this.parkingBrakeStatus],
      ["brakePedalStatus", this.brakePedalStatus],
      ["distanceToNextVehicle", this.distanceToNextVehicle],
      ["cruiseStatus", this.cruiseStatus],
      ["destination", this.destination],
      ["frontLeftTirePressure", this.frontLeftTirePressure],
      ["frontRightTirePressure", this.frontRightTirePressure],
      ["rearLeftTirePressure", this.rearLeftTirePressure],
      ["rearRightTirePressure", this.rearRightTirePressure],
      ["long_context", this.longContext],
    ];
  }

  private lc(name: string, kind: "list"): PyValue[];
  private lc(name: string, kind: "dict"): PyDict;
  private lc(name: string, kind: "str"): string;
  private lc(name: string, kind: "list" | "dict" | "str"): PyValue {
    return longContextValue(this.scope.longContext(), name, kind as "list");
  }

  protected readonly methods: Record<string, MethodSpec> = {
    startEngine: method(["ignitionMode"], (ignitionMode) => {
      if (pyEq(ignitionMode, "STOP")) this.engineState = "stopped";
      if (pyCompare(this.remainingUnlockedDoors, ">", 0n)) {
        const unlocked = dictView(this.doorStatus, "keys").filter((door) => pyEq(pyGetItem(this.doorStatus, door), "unlocked"));
        return dict({ error: "All doors must be locked before starting the engine. Here are the unlocked doors: " + pyJoin(", ", unlocked) });
      }
      if (!pyEq(this.brakePedalStatus, "pressed")) return dict({ error: "Brake pedal needs to be pressed when starting the engine." });
      if (!pyEq(this.brakePedalForce, 1000.0)) return dict({ error: "Must press the brake fully before starting the engine." });
      if (pyCompare(this.fuelLevel, "<", MIN_FUEL_LEVEL)) return dict({ error: "Fuel tank is empty." });
      if (pyEq(ignitionMode, "START")) this.engineState = "running";
      else return dict({ error: "Invalid ignition mode." });
      return dict({ engineState: this.engineState, fuelLevel: this.fuelLevel, batteryVoltage: this.batteryVoltage });
    }),

    fillFuelTank: method(["fuelAmount"], (fuelAmount) => {
      if (pyCompare(fuelAmount, "<", 0n)) return dict({ error: "Fuel amount cannot be negative." });
      if (pyCompare(pyAdd(this.fuelLevel, fuelAmount), ">", MAX_FUEL_LEVEL)) return dict({ error: "Cannot fill gas above the tank capacity." });
      if (pyCompare(pyAdd(this.fuelLevel, fuelAmount), "<", MIN_FUEL_LEVEL)) return dict({ error: "Fuel tank is empty. Min fuel level is 0 gallons." });
      this.fuelLevel = pyAdd(this.fuelLevel, fuelAmount);
      return dict({ fuelLevel: this.fuelLevel });
    }),

    lockDoors: method(["unlock", "door"], (unlock, doors) => {
      if (pyTruthy(unlock)) {
        for (const d of pyIter(doors)) {
          if (pyEq(pyGetItem(this.doorStatus, d), "unlocked")) continue;
          pySetItem(this.doorStatus, d, "unlocked");
          this.remainingUnlockedDoors = pyAdd(this.remainingUnlockedDoors, 1n);
        }
        return dict({ lockStatus: "unlocked", remainingUnlockedDoors: this.remainingUnlockedDoors });
      }
      for (const d of pyIter(doors)) {
        if (pyEq(pyGetItem(this.doorStatus, d), "locked")) continue;
        pySetItem(this.doorStatus, d, "locked");
        this.remainingUnlockedDoors = pySub(this.remainingUnlockedDoors, 1n);
      }
      return dict({ lockStatus: "locked", remainingUnlockedDoors: this.remainingUnlockedDoors });
    }),

    adjustClimateControl: method(["temperature", ["unit", "celsius"], ["fanSpeed", 50n], ["mode", "auto"]], (temperature, unit, fanSpeed, mode) => {
      if (!(pyCompare(0n, "<=", fanSpeed) && pyCompare(fanSpeed, "<=", 100n))) return dict({ error: "Fan speed must be between 0 and 100." });
      this.acTemperature = temperature;
      if (pyEq(unit, "fahrenheit")) this.acTemperature = pyTrueDiv(pyMul(pySub(temperature, 32n), 5n), 9n);
      this.fanSpeed = fanSpeed;
      this.acMode = mode;
      return dict({ currentACTemperature: temperature, climateMode: mode, humidityLevel: this.humidityLevel });
    }),

    get_outside_temperature_from_google: method([], () => {
      if (this.longContext) {
        const weather = this.lc("LONG_WEATHER_EXTENSION", "dict") as PyDict;
        weather.set("outsideTemperature", this.random.uniform(-10.0, 40.0));
        return weather;
      }
      return dict({ outsideTemperature: this.random.uniform(-10.0, 40.0) });
    }),

    get_outside_temperature_from_weather_com: method([], () => dict({ error: 404n })),

    setHeadlights: method(["mode"], (mode) => {
      if (!pyIn(mode, ["on", "off", "auto"])) return dict({ error: "Invalid headlight mode." });
      if (pyEq(mode, "on")) {
        this.headLightStatus = "on";
        return dict({ headlightStatus: "on" });
      }
      this.headLightStatus = "off";
      return dict({ headlightStatus: "off" });
    }),

    displayCarStatus: method(["option"], (option) => {
      const status = new PyDict();
      if (this.longContext) status.set("metadata", this.lc("CAR_STATUS_METADATA_EXTENSION", "str"));
      if (pyEq(option, "fuel")) status.set("fuelLevel", this.fuelLevel);
      else if (pyEq(option, "battery")) status.set("batteryVoltage", this.batteryVoltage);
      else if (pyEq(option, "doors")) status.set("doorStatus", this.doorStatus);
      else if (pyEq(option, "climate")) {
        status.set("currentACTemperature", this.acTemperature);
        status.set("fanSpeed", this.fanSpeed);
        status.set("climateMode", this.acMode);
        status.set("humidityLevel", this.humidityLevel);
      } else if (pyEq(option, "headlights")) status.set("headlightStatus", this.headLightStatus);
      else if (pyEq(option, "parkingBrake")) {
        status.set("parkingBrakeStatus", this.parkingBrakeStatus);
        status.set("parkingBrakeForce", this.parkingBrakeForce);
        status.set("slopeAngle", this.slopeAngle);
      } else if (pyEq(option, "brakePedal")) {
        status.set("brakePedalStatus", this.brakePedalStatus);
        status.set("brakePedalForce", this.brakePedalForce);
      } else if (pyEq(option, "engine")) status.set("engineState", this.engineState);
      else status.set("error", "Invalid option");
      return status;
    }),

    activateParkingBrake: method(["mode"], (mode) => {
      if (!pyIn(mode, ["engage", "release"])) return dict({ error: "Invalid mode" });
      const engage = pyEq(mode, "engage");
      this.parkingBrakeStatus = engage ? "engaged" : "released";
      this.parkingBrakeForce = engage ? 500.0 : 0.0;
      this.slopeAngle = 10.0;
      const result = dict({ parkingBrakeStatus: this.parkingBrakeStatus, _parkingBrakeForce: this.parkingBrakeForce, _slopeAngle: 10.0 });
      if (this.longContext) {
        return dict({ parkingBrakeInstruction: this.lc("PARKING_BRAKE_INSTRUCTION", "str"), ...Object.fromEntries(result.entries() as [string, PyValue][]) });
      }
      return result;
    }),

    pressBrakePedal: method(["pedalPosition"], (pedalPosition) => {
      if (!(pyCompare(0n, "<=", pedalPosition) && pyCompare(pedalPosition, "<=", 1n))) return dict({ error: "Pedal position must be between 0 and 1." });
      if (pyEq(pedalPosition, 0n)) {
        this.brakePedalStatus = "released";
        this.brakePedalForce = 0.0;
        return dict({ brakePedalStatus: "released", brakePedalForce: 0.0 });
      }
      const force = pyMul(pedalPosition, 1000n);
      this.brakePedalStatus = "pressed";
      this.brakePedalForce = force;
      return dict({ brakePedalStatus: "pressed", brakePedalForce: pyFloat(force) });
    }),

    releaseBrakePedal: method([], () => {
      this.brakePedalStatus = "released";
      this.brakePedalForce = 0.0;
      return dict({ brakePedalStatus: "released", brakePedalForce: 0.0 });
    }),

    setCruiseControl: method(["speed", "activate", "distanceToNextVehicle"], (speedArg, activate, distanceArg) => {
      const distance = pyFloat(distanceArg);
      const speed = pyFloat(speedArg);
      if (pyEq(this.engineState, "stopped")) return dict({ error: "Start the engine before activating the cruise control." });
      if (pyTruthy(activate)) {
        this.distanceToNextVehicle = distance;
        if (speed < 0 || speed > 120 || !pyEq(pyMod(speed, 5n), 0n)) return dict({ error: "Invalid speed" });
        this.cruiseStatus = "active";
        return dict({ cruiseStatus: "active", currentSpeed: speed, distanceToNextVehicle: distance });
      }
      this.cruiseStatus = "inactive";
      this.distanceToNextVehicle = distance;
      return dict({ cruiseStatus: "inactive", currentSpeed: speed, distanceToNextVehicle: distance });
    }),

    get_current_speed: method([], () => dict({ currentSpeed: this.random.uniform(0.0, 120.0) })),

    display_log: method(["messages"], (messages) => dict({ log: messages })),

    estimate_drive_feasibility_by_mileage: method(["distance"], (distance) => {
      if (pyCompare(pyMul(this.fuelLevel, MILE_PER_GALLON), "<", distance)) return dict({ canDrive: false });
      return dict({ canDrive: true });
    }),

    liter_to_gallon: method(["liter"], (liter) => dict({ gallon: pyMul(liter, 0.264172) })),

    gallon_to_liter: method(["gallon"], (gallon) => dict({ liter: pyMul(gallon, 3.78541) })),

    estimate_distance: method(["cityA", "cityB"], (cityA, cityB) => {
      const row = DISTANCES.find(([a, b]) => (pyEq(cityA, a) && pyEq(cityB, b)) || (pyEq(cityA, b) && pyEq(cityB, a)));
      const distance = row ? dict({ distance: row[2] }) : dict({ error: "distance not found in database." });
      if (this.longContext) distance.set("intermediaryCities", this.lc("INTERMEDIARY_CITIES", "list"));
      return distance;
    }),

    get_zipcode_based_on_city: method(["city"], (city) => {
      const row = ZIPCODES.find(([name]) => pyEq(city, name));
      return dict({ zipcode: row ? row[1] : "00000" });
    }),

    set_navigation: method(["destination"], (destination) => {
      this.destination = destination;
      return dict({ status: pyAdd("Navigating to ", destination) });
    }),

    check_tire_pressure: method([], () => {
      const total = pyAdd(pyAdd(pyAdd(this.frontLeftTirePressure, this.frontRightTirePressure), this.rearLeftTirePressure), this.rearRightTirePressure);
      const average = pyTrueDiv(total, 4n);
      const healthy = pyCompare(30n, "<=", average) && pyCompare(average, "<=", 35n);
      const status = dict({
        frontLeftTirePressure: this.frontLeftTirePressure,
        frontRightTirePressure: this.frontRightTirePressure,
        rearLeftTirePressure: this.rearLeftTirePressure,
        rearRightTirePressure: this.rearRightTirePressure,
        healthy_tire_pressure: healthy,
        car_info: new PyDict(),
      });
      if (this.longContext) status.set("car_info", this.lc("CAR_STATUS_METADATA_EXTENSION", "str"));
      return status;
    }),

    find_nearest_tire_shop: method([], () => dict({ shopLocation: "456 Oakwood Avenue, Rivermist, 83214" })),
  };
}
