// The JSON Schemas of the Stream Deck app plugin's settings, for whoever writes or checks them outside
// the property inspector (a provisioning script, an editor): the plugin's global settings (the recorders
// and their tokens, kept by the app) and an action's settings. Generated from the zod schemas the plugin
// and its inspector check with (src/plugin/settings.ts), so the three cannot disagree.
import { jsonSchemaOf } from '../profiles/json-schema.js';
import { ActionSettings, GlobalSettings } from '../plugin/settings.js';

export function pluginJsonSchemas() {
  return [
    {
      file: 'recdeck-plugin-global-settings.schema.json',
      schema: jsonSchemaOf(GlobalSettings, {
        $id: 'https://recdeck.dev/schema/plugin/global-settings.json',
        title: 'recdeck Stream Deck plugin: global settings',
        description: 'The recorders the plugin controls, each with its address and API token, or a facility on the state bus the desk joins as a panel (its key file, id and facility file; no token). The Stream Deck app keeps them for the plugin; no action\'s settings ever hold a token.',
      }),
    },
    {
      file: 'recdeck-plugin-action-settings.schema.json',
      schema: jsonSchemaOf(ActionSettings, {
        $id: 'https://recdeck.dev/schema/plugin/action-settings.json',
        title: 'recdeck Stream Deck plugin: an action\'s settings',
        description: 'Which recorder an action instance runs on and how long a guarded one is held, beside the action\'s own parameters (its channel, source, gain step…) as the profile schema describes them for that action.',
      }),
    },
  ];
}
